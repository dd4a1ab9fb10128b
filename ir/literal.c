/* Tensor literals: the body of dense<...> as StableHLO's textual form writes
 * it, decoded into a host tensor and printed back.
 *
 * Decimal floats are rounded once, directly from the decimal string, to the
 * target type: f32 and f64 by the C library's correctly rounded strtof and
 * strtod, f16 and bf16 by MPFR at the format's precision and exponent range
 * (going through a double first would round twice). A decimal whose value
 * rounds to infinity is an error, like an integer out of range; infinities
 * and NaNs are spelled inf/nan or as hex bit patterns.
 *
 * The printer emits, for finite floats, the shortest of the correctly rounded
 * 1, 2, ... digit decimals that decodes back to the same bits, always with a
 * '.' so it reads as a float; infinities and NaNs print as hex bit patterns,
 * which carry sign and payload exactly. So decode(print(t)) == t bitwise. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "plumb/fp8.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

/* ---- float encodings ------------------------------------------------------ */

typedef struct fmt_info {
    uint32_t bits, mant, expo;
} fmt_info;

static fmt_info float_fmt(plumb_dtype t)
{
    const plumb_dtype_info *i = plumb_dtype_get(t);
    fmt_info f = {i->bits, i->mant_bits, i->exp_bits};
    return f;
}

static uint64_t fmt_inf(fmt_info f) { return ((1ull << f.expo) - 1) << f.mant; }
static uint64_t fmt_sign(fmt_info f) { return 1ull << (f.bits - 1); }
static uint64_t fmt_qnan(fmt_info f) { return fmt_inf(f) | (1ull << (f.mant - 1)); }
static bool fmt_is_inf_or_nan(fmt_info f, uint64_t bits) { return (bits & fmt_inf(f)) == fmt_inf(f); }

/* Rounds the decimal string s (already validated, NUL-terminated) once to a
 * half format: MPFR at the format's precision with its exponent range, then
 * subnormalized. In MPFR's convention x = m * 2^e with 1/2 <= m < 1, so the
 * smallest subnormal 2^(2 - bias - mant - 1) has e = 2 - bias - mant and the
 * largest finite value has e = bias + 1. */
static uint16_t decimal_to_half(const char *s, bool bf16)
{
    const int mant = bf16 ? 7 : 10;
    const int bias = bf16 ? 127 : 15;
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_t x;
    mpfr_init2(x, mant + 1);
    mpfr_set_emin(2 - bias - mant);
    mpfr_set_emax(bias + 1);
    int inex = mpfr_strtofr(x, s, NULL, 10, MPFR_RNDN);
    inex = mpfr_check_range(x, inex, MPFR_RNDN);
    mpfr_subnormalize(x, inex, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    /* x is now exactly a value of the half format, so the double is exact and
     * narrowing it does not round. */
    double v = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    return bf16 ? plumb_f64_to_bf16(v) : plumb_f64_to_f16(v);
}

/* Rounds the decimal s once to a small float format (FP8/FP6/FP4/E8M0):
 * MPFR truncates it to 53 bits and an inexact result gets its last bit set
 * (round to odd), so the double stands for the decimal's exact value when
 * rounded to any format of at most 51 bits: rounding it to the small format
 * is a single correct rounding of the decimal (Boldo and Melquiond, "When
 * double rounding is odd", 2005). */
static uint32_t decimal_to_small(const char *s, const plumb_fpfmt *f, bool *overflowed)
{
    mpfr_t x;
    mpfr_init2(x, 53);
    int inex = mpfr_strtofr(x, s, NULL, 10, MPFR_RNDZ);
    double d = mpfr_get_d(x, MPFR_RNDZ);
    mpfr_clear(x);
    if (inex && isfinite(d))
        d = plumb_f64_from_bits(plumb_f64_bits(d) | 1);
    return plumb_f64_to_small_ov(f, d, overflowed);
}

/* Bits of the decimal s rounded once to float type t. */
static uint64_t decimal_to_bits(const char *s, plumb_dtype t)
{
    bool ov;
    if (plumb_fpfmt_get(t))
        return decimal_to_small(s, plumb_fpfmt_get(t), &ov);
    switch (t) {
    case PLUMB_F16: return decimal_to_half(s, false);
    case PLUMB_BF16: return decimal_to_half(s, true);
    case PLUMB_F32: return plumb_f32_bits(strtof(s, NULL));
    default: return plumb_f64_bits(strtod(s, NULL));
    }
}

static double bits_to_double(plumb_dtype t, uint64_t bits)
{
    if (plumb_fpfmt_get(t))
        return plumb_small_to_f64(plumb_fpfmt_get(t), (uint32_t)bits);
    switch (t) {
    case PLUMB_F16: return plumb_f16_to_f64((uint16_t)bits);
    case PLUMB_BF16: return plumb_bf16_to_f64((uint16_t)bits);
    case PLUMB_F32: return (double)plumb_f32_from_bits((uint32_t)bits);
    default: return plumb_f64_from_bits(bits);
    }
}

/* ---- printing --------------------------------------------------------------- */

/* Rewrites C's "%.*e" spelling ("-1.2500e+03") as plumb's: positional with at
 * least one fractional digit when the decimal exponent is in [-5, 15]
 * ("-1250.0", "0.000125"), otherwise "d.ddde[-]X" ("1.0e-8", "3.4028235e38").
 * Trailing zeros of the significand are dropped; the value is unchanged. */
static void put_decimal(plumb_buf *b, const char *e_form)
{
    const char *p = e_form;
    if (*p == '-') {
        plumb_buf_puts(b, "-");
        p++;
    }
    char dig[40];
    size_t nd = 0;
    while (*p && *p != 'e') {
        if (*p >= '0' && *p <= '9' && nd < sizeof dig - 1)
            dig[nd++] = *p;
        p++;
    }
    int ex = (*p == 'e') ? atoi(p + 1) : 0;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    dig[nd] = '\0';
    if (ex >= -5 && ex <= 15) {
        if (ex >= 0) {
            for (int i = 0; i <= ex; i++)
                plumb_buf_append(b, (size_t)i < nd ? &dig[i] : "0", 1);
            plumb_buf_puts(b, ".");
            if ((size_t)ex + 1 < nd)
                plumb_buf_puts(b, dig + ex + 1);
            else
                plumb_buf_puts(b, "0");
        } else {
            plumb_buf_puts(b, "0.");
            for (int i = 0; i < -ex - 1; i++)
                plumb_buf_puts(b, "0");
            plumb_buf_puts(b, dig);
        }
    } else {
        plumb_buf_append(b, dig, 1);
        plumb_buf_puts(b, ".");
        plumb_buf_puts(b, nd > 1 ? dig + 1 : "0");
        plumb_buf_printf(b, "e%d", ex);
    }
}

void plumb_float_print(plumb_buf *b, plumb_dtype t, uint64_t bits)
{
    if ((unsigned)t >= PLUMB_DTYPE_COUNT || !plumb_dtype_is_float(t)) {
        /* Misuse, but a printer must not fail: show the raw bits. */
        plumb_buf_printf(b, "0x%llX", (unsigned long long)bits);
        return;
    }
    fmt_info f = float_fmt(t);
    const plumb_fpfmt *sf = plumb_fpfmt_get(t);
    if (sf ? plumb_small_is_nan(sf, (uint32_t)bits) || plumb_small_is_inf(sf, (uint32_t)bits)
           : fmt_is_inf_or_nan(f, bits)) {
        plumb_buf_printf(b, "0x%0*llX", (int)((f.bits + 3) / 4), (unsigned long long)bits);
        return;
    }
    /* Enough significant digits to distinguish every value: ceil(1 + p*log10 2). */
    int maxdig = sf ? 17 : t == PLUMB_F16 ? 5 : t == PLUMB_BF16 ? 4 : t == PLUMB_F32 ? 9 : 17;
    double v = bits_to_double(t, bits);
    char tmp[64];
    for (int n = 1; n <= maxdig; n++) {
        snprintf(tmp, sizeof tmp, "%.*e", n - 1, v);
        bool ov = false;
        /* FP6/FP4 saturate: a short decimal beyond the largest value would
         * decode to it but is not a valid literal. */
        uint64_t got = sf ? decimal_to_small(tmp, sf, &ov) : decimal_to_bits(tmp, t);
        if (!ov && got == bits)
            break;
    }
    put_decimal(b, tmp);
}

static void print_elem(plumb_buf *b, plumb_dtype t, uint64_t bits)
{
    switch (plumb_dtype_get(t)->cls) {
    case PLUMB_DC_BOOL:
        plumb_buf_puts(b, bits ? "true" : "false");
        break;
    case PLUMB_DC_SINT: {
        uint32_t w = plumb_dtype_get(t)->bits;
        int64_t v = w == 64 ? (int64_t)bits
                            : (int64_t)(bits << (64 - w)) >> (64 - w);
        plumb_buf_printf(b, "%lld", (long long)v);
        break;
    }
    case PLUMB_DC_UINT:
        plumb_buf_printf(b, "%llu", (unsigned long long)bits);
        break;
    case PLUMB_DC_FLOAT:
        plumb_float_print(b, t, bits);
        break;
    case PLUMB_DC_COMPLEX:   /* printed by print_elem_at, which has both halves */
        plumb_buf_printf(b, "0x%llX", (unsigned long long)bits);
        break;
    }
}

/* Element i of t: a complex element prints as StableHLO writes it, "(re,im)",
 * each component in its float type's shortest round-trip form. */
static void print_elem_at(plumb_buf *b, const plumb_tensor *t, size_t i)
{
    if (plumb_dtype_is_complex(t->dtype)) {
        plumb_dtype c = plumb_dtype_component(t->dtype);
        plumb_buf_puts(b, "(");
        print_elem(b, c, plumb_load_bits(c, t->data, 2 * i));
        plumb_buf_puts(b, ",");
        print_elem(b, c, plumb_load_bits(c, t->data, 2 * i + 1));
        plumb_buf_puts(b, ")");
        return;
    }
    print_elem(b, t->dtype, plumb_load_bits(t->dtype, t->data, i));
}

static void print_list(plumb_buf *b, const plumb_tensor *t, uint32_t dim, uint64_t *idx)
{
    plumb_buf_puts(b, "[");
    for (int64_t i = 0; i < t->dims[dim]; i++) {
        if (i)
            plumb_buf_puts(b, ", ");
        if (dim + 1 < t->rank)
            print_list(b, t, dim + 1, idx);
        else
            print_elem_at(b, t, (size_t)(*idx)++);
    }
    plumb_buf_puts(b, "]");
}

void plumb_dense_print(plumb_buf *b, const plumb_tensor *t, bool hex)
{
    uint64_t n = plumb_tensor_numel(t);
    size_t es = plumb_dtype_size(t->dtype);
    plumb_buf_puts(b, "dense<");
    if (n == 0) {
        plumb_buf_puts(b, ">");
        return;
    }
    const unsigned char *p = t->data;
    bool splat = true;
    for (uint64_t i = 1; i < n && splat; i++)
        splat = memcmp(p, p + i * es, es) == 0;
    if (hex) {
        size_t nb = splat ? es : t->nbytes;
        plumb_buf_puts(b, "\"0x");
        for (size_t i = 0; i < nb; i++)
            plumb_buf_printf(b, "%02X", p[i]);
        plumb_buf_puts(b, "\">");
        return;
    }
    if (splat) {
        print_elem_at(b, t, 0);
    } else {
        uint64_t idx = 0;
        print_list(b, t, 0, &idx);
    }
    plumb_buf_puts(b, ">");
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct lit {
    const char *s;
    size_t len, pos;
    plumb_loc start;
    plumb_tensor *out;
    plumb_diag *d;
    uint64_t numel;
    uint64_t next;      /* next element index to store */
    bool discard;       /* parsing surplus elements only to count them */
} lit;

/* Location of byte off of the body, following newlines inside it. */
static plumb_loc lit_loc(const lit *p, size_t off)
{
    plumb_loc l = p->start;
    if (l.line == 0)
        return l;
    size_t line_start = 0;
    bool nl = false;
    for (size_t i = 0; i < off && i < p->len; i++) {
        if (p->s[i] == '\n') {
            l.line++;
            line_start = i + 1;
            nl = true;
        }
    }
    l.col = nl ? (uint32_t)(off - line_start + 1) : p->start.col + (uint32_t)off;
    return l;
}

__attribute__((format(printf, 4, 5)))
static bool lit_err(lit *p, size_t off, plumb_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plumb_diag_vset(p->d, code, lit_loc(p, off), fmt, ap);
    va_end(ap);
    return false;
}

static void skip_ws(lit *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int peek(const lit *p) { return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1; }

/* Describes the byte at off for an error message. */
static const char *what_at(const lit *p, size_t off, char *tmp, size_t n)
{
    if (off >= p->len)
        return "the end of the literal";
    unsigned char c = (unsigned char)p->s[off];
    if (c >= 0x21 && c < 0x7f)
        snprintf(tmp, n, "'%c'", c);
    else
        snprintf(tmp, n, "byte 0x%02X", c);
    return tmp;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool is_tok(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '+' || c == '-' || c == '_';
}

/* Parses an unsigned magnitude: "0x" hex or decimal digits, the whole of
 * tok[0..n). Returns 0 ok, 1 malformed, 2 overflows 64 bits. */
static int parse_mag(const char *tok, size_t n, uint64_t *out, bool *was_hex)
{
    uint64_t v = 0;
    size_t i = 0;
    int base = 10;
    *was_hex = false;
    if (n > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
        base = 16;
        i = 2;
        *was_hex = true;
    }
    if (i == n)
        return 1;
    bool overflow = false;
    for (; i < n; i++) {
        int dv = base == 16 ? hexval(tok[i]) : (tok[i] >= '0' && tok[i] <= '9' ? tok[i] - '0' : -1);
        if (dv < 0)
            return 1;
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
            overflow = true;
        else
            v = v * (uint64_t)base + (uint64_t)dv;
    }
    *out = v;
    return overflow ? 2 : 0;
}

/* [+-]? digits ('.' digits*)? ([eE] [+-]? digits)? */
static bool is_decimal(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == d0)
        return false;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e0)
            return false;
    }
    return i == n;
}

static bool tok_is(const char *tok, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(tok, word, n) == 0;
}

static bool int_bits(lit *p, size_t off, const char *tok, size_t n, uint64_t *bits)
{
    plumb_dtype t = p->out->dtype;
    const plumb_dtype_info *info = plumb_dtype_get(t);
    if (t == PLUMB_I1) {
        if (tok_is(tok, n, "true")) { *bits = 1; return true; }
        if (tok_is(tok, n, "false")) { *bits = 0; return true; }
    }
    bool neg = n > 0 && tok[0] == '-';
    uint64_t mag;
    bool hex;
    int r = parse_mag(tok + neg, n - neg, &mag, &hex);
    if (r == 1)
        return lit_err(p, off, PLUMB_ERR_PARSE, "expected %s for an element of %s, found '%.*s'",
                       t == PLUMB_I1 ? "true, false, 0 or 1" : "an integer",
                       info->name, (int)(n > 64 ? 64 : n), tok);
    uint64_t max_pos, max_neg;
    if (t == PLUMB_I1) {
        max_pos = 1;
        max_neg = 0;
    } else if (info->cls == PLUMB_DC_SINT) {
        max_pos = (1ull << (info->bits - 1)) - 1;
        max_neg = 1ull << (info->bits - 1);
    } else {
        max_pos = info->bits == 64 ? UINT64_MAX : (1ull << info->bits) - 1;
        max_neg = 0;
    }
    if (r == 2 || (neg ? mag > max_neg : mag > max_pos))
        return lit_err(p, off, PLUMB_ERR_INVALID, "value %.*s is out of range for %s",
                       (int)(n > 64 ? 64 : n), tok, info->name);
    uint64_t v = neg ? (uint64_t)0 - mag : mag;
    *bits = info->bits == 64 ? v : v & ((1ull << info->bits) - 1);
    return true;
}

/* A float token for type t (a float type, or a complex type's component). */
/* A float token for a small float format: nan and inf only where the format
 * has them, hex bit patterns, and decimals rounded once; a decimal that
 * rounds beyond the largest finite value is an error (as for the wide
 * formats), and so is a negative one for the unsigned f8E8M0FNU. */
static bool small_float_bits(lit *p, plumb_dtype t, const plumb_fpfmt *sf, size_t off,
                             const char *tok, size_t n, uint64_t *bits)
{
    const char *name = plumb_dtype_name(t);
    int show = (int)(n > 64 ? 64 : n);
    bool neg = n > 0 && tok[0] == '-';
    size_t s = (n > 0 && (tok[0] == '-' || tok[0] == '+')) ? 1 : 0;
    if (tok_is(tok + s, n - s, "nan")) {
        if (sf->nan == PLUMB_FPNAN_NONE)
            return lit_err(p, off, PLUMB_ERR_INVALID, "%s has no NaN: '%.*s'", name, show, tok);
        uint32_t q = plumb_small_qnan(sf);
        if (neg && (sf->nan == PLUMB_FPNAN_IEEE || sf->nan == PLUMB_FPNAN_FN))
            q |= 1u << (sf->bits - 1);
        *bits = q;
        return true;
    }
    if (tok_is(tok + s, n - s, "inf")) {
        if (sf->nan != PLUMB_FPNAN_IEEE)
            return lit_err(p, off, PLUMB_ERR_INVALID, "%s has no infinity: '%.*s'", name, show, tok);
        *bits = plumb_f64_to_small(sf, neg ? -INFINITY : INFINITY);
        return true;
    }
    if (n - s > 2 && tok[s] == '0' && (tok[s + 1] == 'x' || tok[s + 1] == 'X')) {
        uint64_t v;
        bool hex;
        if (s)
            return lit_err(p, off, PLUMB_ERR_PARSE,
                           "a hex float bit pattern takes no sign: '%.*s'", show, tok);
        int r = parse_mag(tok, n, &v, &hex);
        if (r == 1)
            return lit_err(p, off, PLUMB_ERR_PARSE, "malformed hex bit pattern '%.*s'", show, tok);
        if (r == 2 || (v >> sf->bits) != 0)
            return lit_err(p, off, PLUMB_ERR_INVALID,
                           "hex bit pattern %.*s does not fit the %u bits of %s",
                           show, tok, (unsigned)sf->bits, name);
        *bits = v;
        return true;
    }
    if (!is_decimal(tok, n))
        return lit_err(p, off, PLUMB_ERR_PARSE,
                       "expected a number%s or a hex bit pattern for an element of %s, found '%.*s'",
                       sf->nan == PLUMB_FPNAN_NONE ? "" : sf->nan == PLUMB_FPNAN_IEEE ? ", nan, inf" : ", nan",
                       name, show, tok);
    char small[128];
    char *z = n < sizeof small ? small : plumb_malloc(n + 1);
    if (!z)
        return lit_err(p, off, PLUMB_ERR_NOMEM, "out of memory reading a %zu-byte number", n);
    memcpy(z, tok, n);
    z[n] = '\0';
    bool ov;
    uint32_t v = decimal_to_small(z, sf, &ov);
    if (z != small)
        plumb_free(z, n + 1);
    if (ov)
        return lit_err(p, off, PLUMB_ERR_INVALID,
                       "value %.*s is out of range for %s (its largest finite value is %g)",
                       show, tok, name, plumb_small_max(sf));
    if (plumb_small_is_nan(sf, v))
        return lit_err(p, off, PLUMB_ERR_INVALID,
                       "value %.*s is out of range for %s (it has no negative values)", show, tok, name);
    *bits = v;
    return true;
}

static bool float_bits(lit *p, plumb_dtype t, size_t off, const char *tok, size_t n, uint64_t *bits)
{
    if (plumb_fpfmt_get(t))
        return small_float_bits(p, t, plumb_fpfmt_get(t), off, tok, n, bits);
    fmt_info f = float_fmt(t);
    const char *name = plumb_dtype_name(t);
    int show = (int)(n > 64 ? 64 : n);
    bool neg = n > 0 && tok[0] == '-';
    size_t s = (n > 0 && (tok[0] == '-' || tok[0] == '+')) ? 1 : 0;
    if (tok_is(tok + s, n - s, "nan")) {
        *bits = fmt_qnan(f) | (neg ? fmt_sign(f) : 0);
        return true;
    }
    if (tok_is(tok + s, n - s, "inf")) {
        *bits = fmt_inf(f) | (neg ? fmt_sign(f) : 0);
        return true;
    }
    if (n - s > 2 && tok[s] == '0' && (tok[s + 1] == 'x' || tok[s + 1] == 'X')) {
        if (s)
            return lit_err(p, off, PLUMB_ERR_PARSE,
                           "a hex float bit pattern takes no sign: '%.*s'", show, tok);
        uint64_t v;
        bool hex;
        int r = parse_mag(tok, n, &v, &hex);
        if (r == 1)
            return lit_err(p, off, PLUMB_ERR_PARSE, "malformed hex bit pattern '%.*s'", show, tok);
        if (r == 2 || (f.bits < 64 && (v >> f.bits) != 0))
            return lit_err(p, off, PLUMB_ERR_INVALID,
                           "hex bit pattern %.*s does not fit the %u bits of %s",
                           show, tok, f.bits, name);
        *bits = v;
        return true;
    }
    if (!is_decimal(tok, n))
        return lit_err(p, off, PLUMB_ERR_PARSE,
                       "expected a number, nan, inf or a hex bit pattern for an element of %s, found '%.*s'",
                       name, show, tok);
    char small[128];
    char *z = n < sizeof small ? small : plumb_malloc(n + 1);
    if (!z)
        return lit_err(p, off, PLUMB_ERR_NOMEM, "out of memory reading a %zu-byte number", n);
    memcpy(z, tok, n);
    z[n] = '\0';
    uint64_t v = decimal_to_bits(z, t);
    if (z != small)
        plumb_free(z, n + 1);
    if (fmt_is_inf_or_nan(f, v))
        return lit_err(p, off, PLUMB_ERR_INVALID,
                       "value %.*s is out of range for %s (it rounds to infinity; write inf for that)",
                       show, tok, name);
    *bits = v;
    return true;
}

/* Stores one element: bits[0], and for a complex type bits[1] as its
 * imaginary component. */
static void store_elem(plumb_dtype t, void *data, size_t i, const uint64_t bits[2])
{
    if (plumb_dtype_is_complex(t)) {
        plumb_dtype c = plumb_dtype_component(t);
        plumb_store_bits(c, data, 2 * i, bits[0]);
        plumb_store_bits(c, data, 2 * i + 1, bits[1]);
        return;
    }
    plumb_store_bits(t, data, i, bits[0]);
}

static bool store(lit *p, const uint64_t bits[2])
{
    if (p->discard)
        return true;
    if (p->next >= p->numel)   /* unreachable when the per-dimension counts hold */
        return lit_err(p, p->pos, PLUMB_ERR_PARSE, "too many elements");
    store_elem(p->out->dtype, p->out->data, (size_t)p->next++, bits);
    return true;
}

/* One float token at p->pos for type t. */
static bool float_token(lit *p, plumb_dtype t, uint64_t *bits)
{
    char tmp[16];
    size_t off = p->pos;
    while (p->pos < p->len && is_tok((unsigned char)p->s[p->pos]))
        p->pos++;
    size_t n = p->pos - off;
    if (n == 0)
        return lit_err(p, off, PLUMB_ERR_PARSE, "expected a value, found %s",
                       what_at(p, off, tmp, sizeof tmp));
    return float_bits(p, t, off, p->s + off, n, bits);
}

/* A complex element, "(re, im)" as StableHLO prints it: each component is a
 * float token of the component type (decimal rounded once, nan, inf or a hex
 * bit pattern of the component). */
static bool complex_pair(lit *p, uint64_t bits[2])
{
    char tmp[16];
    plumb_dtype c = plumb_dtype_component(p->out->dtype);
    if (peek(p) != '(')
        return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                       "expected '(' opening a (real, imaginary) pair for an element of %s, found %s",
                       plumb_dtype_name(p->out->dtype), what_at(p, p->pos, tmp, sizeof tmp));
    p->pos++;
    skip_ws(p);
    if (!float_token(p, c, &bits[0]))
        return false;
    skip_ws(p);
    if (peek(p) != ',')
        return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                       "expected ',' between the real and imaginary parts of a %s element, found %s",
                       plumb_dtype_name(p->out->dtype), what_at(p, p->pos, tmp, sizeof tmp));
    p->pos++;
    skip_ws(p);
    if (!float_token(p, c, &bits[1]))
        return false;
    skip_ws(p);
    if (peek(p) != ')')
        return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                       "expected ')' closing a %s element, found %s",
                       plumb_dtype_name(p->out->dtype), what_at(p, p->pos, tmp, sizeof tmp));
    p->pos++;
    return true;
}

/* Reads one scalar at p->pos into bits (bits[1]: a complex element's
 * imaginary part). */
static bool scalar(lit *p, uint64_t bits[2])
{
    char tmp[16];
    size_t off = p->pos;
    int c = peek(p);
    bits[1] = 0;
    if (plumb_dtype_is_complex(p->out->dtype))
        return complex_pair(p, bits);
    if (c == '(')
        return lit_err(p, off, PLUMB_ERR_INVALID, "a (real, imaginary) pair is an element of a complex tensor, not of %s",
                       plumb_dtype_name(p->out->dtype));
    if (c == '"')
        return lit_err(p, off, PLUMB_ERR_PARSE,
                       "a raw \"0x...\" string must be the whole literal, not a list element");
    while (p->pos < p->len && is_tok((unsigned char)p->s[p->pos]))
        p->pos++;
    size_t n = p->pos - off;
    if (n == 0)
        return lit_err(p, off, PLUMB_ERR_PARSE, "expected a value, found %s",
                       what_at(p, off, tmp, sizeof tmp));
    if (plumb_dtype_is_float(p->out->dtype))
        return float_bits(p, p->out->dtype, off, p->s + off, n, &bits[0]);
    return int_bits(p, off, p->s + off, n, &bits[0]);
}

static bool list(lit *p, uint32_t dim)
{
    char tmp[16];
    size_t open = p->pos;
    p->pos++;   /* '[' */
    int64_t want = p->out->dims[dim];
    int64_t count = 0;
    bool was_discard = p->discard;
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
    } else {
        for (;;) {
            if (count >= want)
                p->discard = true;
            skip_ws(p);
            if (dim + 1 < p->out->rank) {
                if (peek(p) != '[')
                    return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                                   "expected '[' for an element of dimension %u (the tensor has rank %u), found %s",
                                   dim + 1, p->out->rank, what_at(p, p->pos, tmp, sizeof tmp));
                if (!list(p, dim + 1))
                    return false;
            } else {
                if (peek(p) == '[')
                    return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                                   "too many nesting levels: elements of dimension %u are scalars (the tensor has rank %u)",
                                   dim, p->out->rank);
                uint64_t bits[2];
                if (!scalar(p, bits) || !store(p, bits))
                    return false;
            }
            count++;
            skip_ws(p);
            int c = peek(p);
            if (c == ',') {
                p->pos++;
                continue;
            }
            if (c == ']') {
                p->pos++;
                break;
            }
            return lit_err(p, p->pos, PLUMB_ERR_PARSE, "expected ',' or ']' in a list, found %s",
                           what_at(p, p->pos, tmp, sizeof tmp));
        }
    }
    p->discard = was_discard;
    if (!was_discard && count != want)
        return lit_err(p, open, PLUMB_ERR_INVALID,
                       "dimension %u of the literal has %lld elements, expected %lld",
                       dim, (long long)count, (long long)want);
    return true;
}

/* Every element of t (numel of them) gets bits: element 0 is stored, then
 * the filled prefix is copied onto the rest, doubling each time, so a large
 * splat costs a few memcpy calls rather than a store per element. */
static void splat_fill(plumb_tensor *t, uint64_t numel, const uint64_t bits[2])
{
    if (!numel)
        return;
    store_elem(t->dtype, t->data, 0, bits);
    size_t es = plumb_dtype_size(t->dtype), done = es, total = (size_t)numel * es;
    unsigned char *d = t->data;
    while (done < total) {
        size_t n = done < total - done ? done : total - done;
        memcpy(d + done, d, n);
        done += n;
    }
}

static bool raw(lit *p)
{
    char tmp[16];
    plumb_tensor *t = p->out;
    size_t open = p->pos;
    p->pos++;   /* '"' */
    if (p->pos + 2 > p->len || p->s[p->pos] != '0' || (p->s[p->pos + 1] != 'x' && p->s[p->pos + 1] != 'X'))
        return lit_err(p, p->pos, PLUMB_ERR_PARSE, "a raw literal must start with \"0x\"");
    p->pos += 2;
    size_t h0 = p->pos;
    while (p->pos < p->len && hexval((unsigned char)p->s[p->pos]) >= 0)
        p->pos++;
    size_t ndig = p->pos - h0;
    if (peek(p) != '"')
        return lit_err(p, p->pos, PLUMB_ERR_PARSE,
                       "expected a hex digit or the closing '\"' of the raw literal, found %s",
                       what_at(p, p->pos, tmp, sizeof tmp));
    p->pos++;
    size_t es = plumb_dtype_size(t->dtype);
    if (ndig % 2)
        return lit_err(p, h0, PLUMB_ERR_PARSE, "raw literal has an odd number (%zu) of hex digits", ndig);
    size_t nb = ndig / 2;
    bool splat;
    if (nb == t->nbytes)
        splat = false;
    else if (nb == es)
        splat = true;
    else
        return lit_err(p, open, PLUMB_ERR_INVALID,
                       "raw literal has %zu bytes, expected %zu (%llu elements of %s) or %zu (one element, a splat)",
                       nb, t->nbytes, (unsigned long long)p->numel, plumb_dtype_name(t->dtype), es);
    unsigned char one[16];
    unsigned char *dst = splat ? one : t->data;
    for (size_t i = 0; i < nb; i++) {
        int b = hexval((unsigned char)p->s[h0 + 2 * i]) * 16 + hexval((unsigned char)p->s[h0 + 2 * i + 1]);
        /* i1 is one byte per element holding 0 or 1; anything else would be a
         * bool that compares unequal to both true and false. */
        if (t->dtype == PLUMB_I1 && b > 1)
            return lit_err(p, h0 + 2 * i, PLUMB_ERR_INVALID,
                           "raw i1 element %zu is 0x%02X; each i1 byte must be 00 or 01", i, b);
        /* The sub-byte types hold their pattern in the low bits of the byte,
         * the rest zero (docs/tensor-files.md). */
        uint32_t w = plumb_dtype_get(t->dtype)->bits;
        if (t->dtype != PLUMB_I1 && w < 8 && (b >> w) != 0)
            return lit_err(p, h0 + 2 * i, PLUMB_ERR_INVALID,
                           "raw %s element %zu is 0x%02X, which does not fit its %u bits",
                           plumb_dtype_name(t->dtype), i, b, w);
        dst[i] = (unsigned char)b;
    }
    if (splat) {
        uint64_t bits[2] = {plumb_load_bits(t->dtype, one, 0), 0};
        if (plumb_dtype_is_complex(t->dtype)) {
            plumb_dtype c = plumb_dtype_component(t->dtype);
            bits[0] = plumb_load_bits(c, one, 0);
            bits[1] = plumb_load_bits(c, one, 1);
        }
        splat_fill(t, p->numel, bits);
    }
    return true;
}

bool plumb_dense_decode(const char *body, size_t len, plumb_loc start,
                        plumb_tensor *out, plumb_diag *d)
{
    char tmp[16];
    lit p = {body, len, 0, start, out, d, 0, 0, false};
    if ((unsigned)out->dtype >= PLUMB_DTYPE_COUNT || out->rank > PLUMB_MAX_RANK)
        return lit_err(&p, 0, PLUMB_ERR_USAGE, "plumb_dense_decode: invalid output tensor");
    uint64_t nbytes;
    plumb_diag sd = {0};
    if (!plumb_shape_size(out->dtype, out->rank, out->dims, UINT64_MAX, &p.numel, &nbytes, &sd) ||
        nbytes != out->nbytes || (nbytes && !out->data))
        return lit_err(&p, 0, PLUMB_ERR_USAGE,
                       "plumb_dense_decode: output tensor data is not sized for its shape");
    skip_ws(&p);
    int c = peek(&p);
    if (c < 0) {
        if (p.numel != 0)
            return lit_err(&p, p.pos, PLUMB_ERR_INVALID,
                           "empty literal for a tensor of %llu elements",
                           (unsigned long long)p.numel);
        return true;
    }
    if (c == '"') {
        if (!raw(&p))
            return false;
    } else if (c == '[') {
        if (out->rank == 0)
            return lit_err(&p, p.pos, PLUMB_ERR_INVALID,
                           "a rank-0 tensor takes a scalar literal, not a list");
        if (!list(&p, 0))
            return false;
    } else {
        uint64_t bits[2];
        if (!scalar(&p, bits))
            return false;
        splat_fill(out, p.numel, bits);
    }
    skip_ws(&p);
    if (p.pos < p.len)
        return lit_err(&p, p.pos, PLUMB_ERR_PARSE, "unexpected %s after the literal",
                       what_at(&p, p.pos, tmp, sizeof tmp));
    return true;
}

/* ---- splat literals ---------------------------------------------------------
 * A literal whose elements all have the same bits is marked once, when it is
 * read, so that the compiler can key it and build it from its one element
 * at a cost that does not grow with its size (docs/runtime.md, "Compile
 * cost"). The mark is tied to the data pointer: a replaced tensor is not
 * marked. */

bool ir_attrs_value_splat(const ir_attrs *a)
{
    return a->value && a->value->data && a->value_splat_data == a->value->data;
}

void ir_attrs_note_splat(ir_attrs *a)
{
    a->value_splat_data = NULL;
    const plumb_tensor *t = a->value;
    if (!t || !t->data)
        return;
    size_t es = plumb_dtype_size(t->dtype);
    if (!es || t->nbytes < es || t->nbytes % es)
        return;
    /* Every element equals the next one exactly when the bytes equal
     * themselves shifted by one element: one memcmp, not one per element. */
    const unsigned char *p = t->data;
    if (t->nbytes == es || memcmp(p, p + es, t->nbytes - es) == 0)
        a->value_splat_data = t->data;
}
