/* StableHLO's interpreter tests check the printed results with LLVM
 * FileCheck; this is the part of FileCheck they use, and the interpreter's
 * print format they match against (cli/filecheck.h). It depends on the
 * library only, so tests/cli/test_filecheck.c compiles it in. */
#include "filecheck.h"

#include "plumb/fp8.h"

#include <gmp.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- FileCheck --------------------------------------------------------------- */

typedef enum fc_kind { FC_PLAIN, FC_NEXT, FC_SAME, FC_NOT, FC_EMPTY, FC_LABEL } fc_kind;

typedef struct fc_dir {
    fc_kind kind;
    char *pat;       /* blanks canonicalized; NUL-terminated */
    unsigned line;   /* in the check file */
} fc_dir;

static const char *const fc_names[] = {"", "-NEXT", "-SAME", "-NOT", "-EMPTY", "-LABEL"};

/* FileCheck does not take a prefix that continues a word (IsPartOfWord). */
static bool fc_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Collapses every run of blanks to one blank (FileCheck's default, without
 * --strict-whitespace, for the input and the patterns alike) and drops
 * carriage returns; returns the new length. */
static size_t fc_canon(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\r')
            continue;
        if (c == ' ' || c == '\t') {
            if (o && s[o - 1] == ' ')
                continue;
            c = ' ';
        }
        s[o++] = c;
    }
    s[o] = 0;
    return o;
}

/* The directive on one line of the check file, if any: *kind and the
 * pattern's span; returns 1 when found, 0 when not, -1 for a directive
 * plumb does not check (its suffix in *pat). *literal is set for the
 * {LITERAL} modifier (PREFIX{LITERAL}:, PREFIX-NEXT{LITERAL}:, ...): the
 * pattern is matched as written, {{ and [[ included. Without it,
 * "CHECK-NEXT{LITERAL}:" would be no directive at all and be skipped
 * silently, where FileCheck checks it. */
static int fc_directive(const char *p, size_t n, const char *prefix, fc_kind *kind, const char **pat,
                        size_t *pat_len, bool *literal)
{
    size_t pl = strlen(prefix);
    for (size_t i = 0; i + pl <= n; i++) {
        if (memcmp(p + i, prefix, pl) != 0 || (i > 0 && fc_word_char(p[i - 1])))
            continue;
        const char *r = p + i + pl;
        size_t rest = n - i - pl;
        static const struct { const char *s; int kind; } sfx[] = {
            {":", FC_PLAIN}, {"-NEXT:", FC_NEXT}, {"-SAME:", FC_SAME}, {"-NOT:", FC_NOT},
            {"-EMPTY:", FC_EMPTY}, {"-LABEL:", FC_LABEL}, {"-DAG:", -1}, {"-COUNT-", -1},
        };
        for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++) {
            size_t sl = strlen(sfx[k].s);
            /* the modifier sits between the kind and its colon */
            static const char lit[] = "{LITERAL}:";
            size_t kl = sl - (sfx[k].s[sl - 1] == ':');   /* the kind without its colon */
            *literal = sfx[k].s[sl - 1] == ':' && rest >= kl + sizeof lit - 1 && memcmp(r, sfx[k].s, kl) == 0 &&
                       memcmp(r + kl, lit, sizeof lit - 1) == 0;
            if (*literal)
                sl = kl + sizeof lit - 1;
            else if (rest < sl || memcmp(r, sfx[k].s, sl) != 0)
                continue;
            if (sfx[k].kind < 0) {
                *pat = sfx[k].s;
                *pat_len = sl;
                return -1;
            }
            *kind = (fc_kind)sfx[k].kind;
            const char *b = r + sl, *e = p + n;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
            *pat = b;
            *pat_len = (size_t)(e - b);
            return 1;
        }
    }
    return 0;
}

static const char *fc_find(const char *hay, size_t hay_len, const char *needle)
{
    size_t nl = strlen(needle);
    if (nl > hay_len)
        return NULL;
    for (size_t i = 0; i + nl <= hay_len; i++)
        if (memcmp(hay + i, needle, nl) == 0)
            return hay + i;
    return NULL;
}

static unsigned fc_newlines(const char *a, const char *b)
{
    unsigned n = 0;
    for (; a < b; a++)
        n += *a == '\n';
    return n;
}

cli_fc_verdict cli_filecheck(const char *checks, size_t checks_len, const char *prefix, const char *input,
                             size_t input_len, char *why, size_t why_size)
{
    cli_fc_verdict v = CLI_FC_PASS;
    const char **lab = NULL;   /* per directive: where its LABEL matched */
    fc_dir *dirs = NULL;
    size_t n_dirs = 0, cap = 0;
    char *in = NULL;
    why[0] = 0;

    unsigned line = 1;
    for (const char *p = checks, *end = checks + checks_len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        fc_kind kind = FC_PLAIN;
        const char *pat;
        size_t pat_len;
        bool literal = false;
        int r = fc_directive(p, n, prefix, &kind, &pat, &pat_len, &literal);
        p += n + 1;
        if (r == 0)
            continue;
        if (r < 0) {
            snprintf(why, why_size, "unsupported: FileCheck directive %s%.*s on line %u", prefix, (int)pat_len, pat,
                     line);
            v = CLI_FC_UNSUPPORTED;
            goto out;
        }
        if (!literal && (fc_find(pat, pat_len, "{{") || fc_find(pat, pat_len, "[["))) {
            snprintf(why, why_size, "unsupported: FileCheck %s on line %u",
                     fc_find(pat, pat_len, "{{") ? "regex" : "variable", line);
            v = CLI_FC_UNSUPPORTED;
            goto out;
        }
        if (pat_len == 0 && kind != FC_EMPTY) {
            /* FileCheck rejects an empty pattern as an error in the test */
            snprintf(why, why_size, "line %u: empty %s%s pattern", line, prefix, fc_names[kind]);
            v = CLI_FC_FAIL;
            goto out;
        }
        if (n_dirs == cap) {
            size_t nc = cap ? 2 * cap : 16;
            fc_dir *nd = realloc(dirs, nc * sizeof *nd);
            if (!nd)
                goto nomem;
            dirs = nd;
            cap = nc;
        }
        char *s = malloc(pat_len + 1);
        if (!s)
            goto nomem;
        memcpy(s, pat, pat_len);
        fc_canon(s, pat_len);
        dirs[n_dirs++] = (fc_dir){kind, s, line};
    }
    if (!n_dirs) {
        snprintf(why, why_size, "no %s: directive in the file", prefix);
        v = CLI_FC_NO_CHECKS;
        goto out;
    }
    if (!(in = malloc(input_len + 1)))
        goto nomem;
    memcpy(in, input, input_len);
    size_t len = fc_canon(in, input_len);
    const char *end = in + len;
    /* LABEL directives match first, in order (FileCheck's first pass):
     * they cut the output into blocks, and every other directive matches
     * inside the block between the labels around it in the check file. */
    if (!(lab = calloc(n_dirs, sizeof *lab)))
        goto nomem;
    const char *lpos = in;
    for (size_t k = 0; k < n_dirs; k++) {
        if (dirs[k].kind != FC_LABEL)
            continue;
        lab[k] = fc_find(lpos, (size_t)(end - lpos), dirs[k].pat);
        if (!lab[k]) {
            snprintf(why, why_size, "line %u: %s-LABEL: '%s' not found in the output", dirs[k].line, prefix,
                     dirs[k].pat);
            v = CLI_FC_FAIL;
            goto out;
        }
        lpos = lab[k] + strlen(dirs[k].pat);
    }
    const char *pos = in;            /* end of the previous match */
    bool matched = false;            /* a positive directive has matched */
    size_t not_from = 0;             /* pending NOT directives: dirs[not_from, k) */
    for (size_t k = 0; k <= n_dirs; k++) {
        const fc_dir *d = k < n_dirs ? &dirs[k] : NULL;
        if (d && d->kind == FC_NOT)
            continue;
        if (d && !matched && (d->kind == FC_NEXT || d->kind == FC_SAME || d->kind == FC_EMPTY)) {
            snprintf(why, why_size, "line %u: %s%s without a %s: before it", d->line, prefix, fc_names[d->kind],
                     prefix);
            v = CLI_FC_FAIL;
            goto out;
        }
        const char *ms = end, *me = end;
        if (d && d->kind == FC_EMPTY) {
            /* the line after the previous match is empty */
            const char *eol = memchr(pos, '\n', (size_t)(end - pos));
            if (!eol || (eol + 1 < end && eol[1] != '\n')) {
                snprintf(why, why_size, "line %u: %s-EMPTY: the next line is not empty", d->line, prefix);
                v = CLI_FC_FAIL;
                goto out;
            }
            ms = me = eol + 1;
        } else if (d && d->kind == FC_LABEL) {
            ms = lab[k];
            me = ms + strlen(d->pat);
        } else if (d) {
            /* the block ends where the next label matched */
            const char *bend = end;
            for (size_t j = k + 1; j < n_dirs; j++)
                if (dirs[j].kind == FC_LABEL) {
                    bend = lab[j];
                    break;
                }
            ms = bend >= pos ? fc_find(pos, (size_t)(bend - pos), d->pat) : NULL;
            if (!ms) {
                snprintf(why, why_size, "line %u: %s%s: '%s' not found in the output", d->line, prefix,
                         fc_names[d->kind], d->pat);
                v = CLI_FC_FAIL;
                goto out;
            }
            me = ms + strlen(d->pat);
            unsigned nls = fc_newlines(pos, ms);
            if (d->kind == FC_NEXT && nls != 1) {
                snprintf(why, why_size, "line %u: %s-NEXT: '%s' is %s", d->line, prefix, d->pat,
                         nls ? "not on the line after the previous match" : "on the line of the previous match");
                v = CLI_FC_FAIL;
                goto out;
            }
            if (d->kind == FC_SAME && nls) {
                snprintf(why, why_size, "line %u: %s-SAME: '%s' is not on the line of the previous match",
                         d->line, prefix, d->pat);
                v = CLI_FC_FAIL;
                goto out;
            }
        }
        /* the NOT patterns before this directive: not in [pos, ms) */
        for (size_t j = not_from; j < k; j++) {
            if (dirs[j].kind != FC_NOT)
                continue;
            if (fc_find(pos, (size_t)(ms - pos), dirs[j].pat)) {
                snprintf(why, why_size, "line %u: %s-NOT: '%s' found in the output", dirs[j].line, prefix,
                         dirs[j].pat);
                v = CLI_FC_FAIL;
                goto out;
            }
        }
        not_from = k + 1;
        pos = me;
        matched = true;
    }
    goto out;
nomem:
    snprintf(why, why_size, "out of memory matching the CHECK lines");
    v = CLI_FC_FAIL;
out:
    for (size_t k = 0; k < n_dirs; k++)
        free(dirs[k].pat);
    free(dirs);
    free(lab);
    free(in);
    return v;
}

/* ---- the interpreter's print format ------------------------------------------ */

/* The value a decimal string reads back to in type t, as bits. */
static uint64_t fp_parse_bits(plumb_dtype t, const char *s)
{
    switch (t) {
    case PLUMB_F64:
        return plumb_f64_bits(strtod(s, NULL));
    case PLUMB_F32:
        return plumb_f32_bits(strtof(s, NULL));
    case PLUMB_F16:
        return plumb_f64_to_f16(strtod(s, NULL));
    case PLUMB_BF16:
        return plumb_f64_to_bf16(strtod(s, NULL));
    default: {
        /* the FP8, FP6 and FP4 formats (f8E3M4, f6E2M3FN, ...): read back
         * in their own format, not bf16's, so that a value such as 2.0
         * prints as 2.000000e+00 there too and not as its bit pattern */
        const plumb_fpfmt *f = plumb_fpfmt_get(t);
        return f ? plumb_f64_to_small(f, strtod(s, NULL)) : plumb_f64_to_bf16(strtod(s, NULL));
    }
    }
}

/* The digits llvm::APFloat::toString keeps of a finite v > 0 before its
 * final rounding: v = S * 10^exp with S = M * 5^-E (v = M * 2^E, M odd) or
 * M << E, then AdjustToPrecision drops (bits(S) - bitsRequired) * 59 / 196
 * low decimal digits of S by truncation (bitsRequired = (precision * 196 +
 * 58) / 59), and trailing zeros go. That truncation is why the driver
 * prints f16 0.0999755859375 as 9.997550e-02 and 9.8671875 as 9.867180e+00
 * at 6 digits, where rounding the exact digits gives ...56 and ...19 (the
 * first-generation interpreter tests expect the former), while bf16
 * 0.10009765625 keeps one more digit and rounds to 1.000980e-01. Writes the
 * digits (most significant first, no trailing zeros) and returns their
 * count; *e10 is the power of ten of the first. */
static size_t apfloat_digits(double v, unsigned precision, char *digits, size_t cap, int *e10)
{
    int e2;
    double f = frexp(v, &e2);
    double m = ldexp(f, 53);   /* an integer below 2^53: exact in a double */
    int e = e2 - 53;
    while (m != 0 && fmod(m, 2.0) == 0) {
        m /= 2;
        e++;
    }
    mpz_t s, t;
    mpz_init_set_d(s, m);
    mpz_init(t);
    long exp10 = 0;
    if (e > 0) {
        mpz_mul_2exp(s, s, (mp_bitcnt_t)e);
    } else if (e < 0) {
        mpz_ui_pow_ui(t, 5, (unsigned long)-e);
        mpz_mul(s, s, t);
        exp10 = e;
    }
    size_t bits = mpz_sizeinbase(s, 2);
    size_t required = ((size_t)precision * 196 + 58) / 59;
    if (bits > required) {
        unsigned long tens = (unsigned long)((bits - required) * 59 / 196);
        if (tens) {
            mpz_ui_pow_ui(t, 10, tens);
            mpz_tdiv_q(s, s, t);
            exp10 += (long)tens;
        }
    }
    char *str = malloc(mpz_sizeinbase(s, 10) + 2);
    size_t n = 0;
    if (str) {
        mpz_get_str(str, 10, s);
        n = strlen(str);
        while (n > 1 && str[n - 1] == '0') {
            n--;
            exp10++;
        }
        if (n > cap)   /* never for a double: cap holds 820 digits */
            n = cap;
        memcpy(digits, str, n);
        free(str);
    }
    mpz_clear(s);
    mpz_clear(t);
    *e10 = (int)(exp10 + (long)n - 1);
    return n;
}

/* llvm::APFloat::toString(Str, precision, max_padding, truncate_zero) of a
 * finite value: the digits apfloat_digits keeps, rounded to `precision`
 * significant digits (0: the type's natural precision) by the first
 * dropped digit, half up, trailing zeros dropped, then written in
 * scientific form (always when max_padding is 0) or positional form. */
static void apfloat_string(char *out, size_t out_size, plumb_dtype t, double v, unsigned precision,
                           unsigned max_padding, bool truncate_zero)
{
    char sig[24], *o = out, *oend = out + out_size - 1;
#define PUT(c) do { if (o < oend) *o++ = (c); } while (0)
    if (precision == 0)
        precision = 2 + (plumb_dtype_get(t)->mant_bits + 1) * 59 / 196;
    if (signbit(v))
        PUT('-');
    v = fabs(v);
    if (v == 0) {
        if (!max_padding) {
            const char *z = truncate_zero ? "0.0E+0" : "0.0";
            while (*z)
                PUT(*z++);
            if (!truncate_zero) {
                for (unsigned i = 1; i < precision; i++)
                    PUT('0');
                PUT('e'); PUT('+'); PUT('0'); PUT('0');
            }
        } else {
            PUT('0');
        }
        *o = 0;
        return;
    }
    /* at most 767 significant digits in a double */
    char digits[820];
    int e10;
    size_t n = apfloat_digits(v, precision, digits, sizeof digits, &e10);
    if (n == 0) {   /* out of memory: the sign alone */
        *o = 0;
        return;
    }
    if (n > precision) {
        bool up = digits[precision] >= '5';
        n = precision;
        if (up) {
            while (n > 0 && digits[n - 1] == '9')
                n--;
            if (n == 0) {
                digits[0] = '1';
                n = 1;
                e10++;
            } else {
                digits[n - 1]++;
            }
        }
        while (n > 1 && digits[n - 1] == '0')
            n--;
    }
    int exp = e10 - (int)(n - 1);   /* the power of ten of the last digit */
    bool sci;
    if (!max_padding)
        sci = true;
    else if (exp >= 0)
        sci = (unsigned)exp > max_padding || n + (unsigned)exp > precision;
    else {
        int msd = exp + (int)(n - 1);
        sci = msd < 0 && (unsigned)(-msd) > max_padding;
    }
    if (sci) {
        PUT(digits[0]);
        PUT('.');
        if (n == 1 && truncate_zero)
            PUT('0');
        for (size_t i = 1; i < n; i++)
            PUT(digits[i]);
        if (!truncate_zero)
            for (size_t i = n - 1; i < precision; i++)
                PUT('0');
        PUT(truncate_zero ? 'E' : 'e');
        PUT(e10 >= 0 ? '+' : '-');
        snprintf(sig, sizeof sig, truncate_zero ? "%d" : "%02d", abs(e10));
        for (char *q = sig; *q; q++)
            PUT(*q);
    } else if (exp >= 0) {
        for (size_t i = 0; i < n; i++)
            PUT(digits[i]);
        for (int i = 0; i < exp; i++)
            PUT('0');
    } else {
        int whole = exp + (int)n;
        size_t i = 0;
        if (whole > 0) {
            for (; i < (size_t)whole; i++)
                PUT(digits[i]);
            PUT('.');
        } else {
            PUT('0');
            PUT('.');
            for (int z = 0; z < -whole; z++)
                PUT('0');
        }
        for (; i < n; i++)
            PUT(digits[i]);
    }
    *o = 0;
#undef PUT
}

/* A float as mlir::FloatAttr prints it with the type elided
 * (printFloatValue in MLIR's AsmPrinter): bits and value v of type dt. */
static void interp_float(plumb_buf *b, plumb_dtype dt, uint64_t bits, double v)
{
    char s[900];
    if (isfinite(v)) {
        apfloat_string(s, sizeof s, dt, v, 6, 0, false);
        if (fp_parse_bits(dt, s) == bits) {
            plumb_buf_puts(b, s);
            return;
        }
        apfloat_string(s, sizeof s, dt, v, 0, 3, true);
        if (strchr(s, '.')) {
            plumb_buf_puts(b, s);
            return;
        }
    }
    plumb_buf_printf(b, "0x%llX", (unsigned long long)bits);
}

/* One element as StableHLO's Element::print writes it: integers and floats
 * as their attributes print with the type elided, a complex element as the
 * list [real, imaginary] of its two float components. */
static void interp_element(plumb_buf *b, const plumb_tensor *t, size_t i)
{
    plumb_dtype dt = t->dtype;
    if (plumb_dtype_is_complex(dt)) {
        plumb_dtype c = plumb_dtype_component(dt);
        plumb_buf_puts(b, "[");
        interp_float(b, c, plumb_load_bits(c, t->data, 2 * i), plumb_load_f64(c, t->data, 2 * i));
        plumb_buf_puts(b, ", ");
        interp_float(b, c, plumb_load_bits(c, t->data, 2 * i + 1), plumb_load_f64(c, t->data, 2 * i + 1));
        plumb_buf_puts(b, "]");
    } else if (plumb_dtype_is_bool(dt)) {
        plumb_buf_puts(b, plumb_load_u64(dt, t->data, i) ? "true" : "false");
    } else if (plumb_dtype_is_signed(dt)) {
        plumb_buf_printf(b, "%lld", (long long)plumb_load_i64(dt, t->data, i));
    } else if (plumb_dtype_is_unsigned(dt)) {
        plumb_buf_printf(b, "%llu", (unsigned long long)plumb_load_u64(dt, t->data, i));
    } else {
        interp_float(b, dt, plumb_load_bits(dt, t->data, i), plumb_load_f64(dt, t->data, i));
    }
}

static void interp_indent(plumb_buf *b, unsigned level)
{
    plumb_buf_puts(b, "\n");
    for (unsigned i = 0; i < level; i++)
        plumb_buf_puts(b, "  ");
}

/* StableHLO's printHelper: the element at a full index, else a list of the
 * next dimension on its own line; `last` says the index is the last of its
 * dimension (true for the empty index). */
static void interp_level(plumb_buf *b, const plumb_tensor *t, uint32_t dim, size_t offset, unsigned indent,
                         bool last)
{
    if (dim == t->rank) {
        interp_element(b, t, offset);
        if (!last)
            plumb_buf_puts(b, ", ");
        return;
    }
    interp_indent(b, indent);
    plumb_buf_puts(b, "[");
    for (int64_t k = 0; k < t->dims[dim]; k++)
        interp_level(b, t, dim + 1, offset * (size_t)t->dims[dim] + (size_t)k, indent + 1, k == t->dims[dim] - 1);
    plumb_buf_puts(b, "]");
    if (!last)
        plumb_buf_puts(b, ",");
    else
        interp_indent(b, indent - 1);
}

/* Element i in a DenseElementsAttr: a complex element is "(re,im)" (MLIR's
 * printDenseElementsAttr), anything else as interp_element prints it. */
static void dense_element(plumb_buf *b, const plumb_tensor *t, size_t i)
{
    plumb_dtype dt = t->dtype;
    if (!plumb_dtype_is_complex(dt)) {
        interp_element(b, t, i);
        return;
    }
    plumb_dtype c = plumb_dtype_component(dt);
    plumb_buf_puts(b, "(");
    interp_float(b, c, plumb_load_bits(c, t->data, 2 * i), plumb_load_f64(c, t->data, 2 * i));
    plumb_buf_puts(b, ",");
    interp_float(b, c, plumb_load_bits(c, t->data, 2 * i + 1), plumb_load_f64(c, t->data, 2 * i + 1));
    plumb_buf_puts(b, ")");
}

static void dense_level(plumb_buf *b, const plumb_tensor *t, uint32_t dim, size_t offset)
{
    if (dim == t->rank) {
        dense_element(b, t, offset);
        return;
    }
    plumb_buf_puts(b, "[");
    for (int64_t k = 0; k < t->dims[dim]; k++) {
        if (k)
            plumb_buf_puts(b, ", ");
        dense_level(b, t, dim + 1, offset * (size_t)t->dims[dim] + (size_t)k);
    }
    plumb_buf_puts(b, "]");
}

void cli_interp_print_dense(plumb_buf *b, const plumb_tensor *t)
{
    size_t n = plumb_tensor_numel(t);
    size_t es = plumb_dtype_is_complex(t->dtype) ? 2 : 1;
    plumb_dtype ct = plumb_dtype_is_complex(t->dtype) ? plumb_dtype_component(t->dtype) : t->dtype;
    bool splat = n > 0;
    /* a splat: every element has the first one's bits (MLIR stores such an
     * attribute as one value and prints it alone) */
    for (size_t i = 1; splat && i < n; i++)
        for (size_t c = 0; c < es; c++)
            if (plumb_load_bits(ct, t->data, es * i + c) != plumb_load_bits(ct, t->data, c))
                splat = false;
    plumb_buf_puts(b, "dense<");
    if (splat)
        dense_element(b, t, 0);
    else if (n)
        dense_level(b, t, 0, 0);
    plumb_buf_puts(b, "> : ");
    plumb_tensor_type_print(b, t);
}

/* One element of the first driver's format: the attribute with its type. */
static void legacy_scalar(plumb_buf *b, plumb_dtype dt, const void *data, size_t i)
{
    if (plumb_dtype_is_bool(dt)) {
        plumb_buf_puts(b, plumb_load_u64(dt, data, i) ? "true" : "false");
        return;
    }
    if (plumb_dtype_is_signed(dt))
        plumb_buf_printf(b, "%lld", (long long)plumb_load_i64(dt, data, i));
    else if (plumb_dtype_is_unsigned(dt))
        plumb_buf_printf(b, "%llu", (unsigned long long)plumb_load_u64(dt, data, i));
    else
        interp_float(b, dt, plumb_load_bits(dt, data, i), plumb_load_f64(dt, data, i));
    plumb_buf_printf(b, " : %s", plumb_dtype_name(dt));
}

void cli_interp_print_legacy(plumb_buf *b, const plumb_tensor *t)
{
    plumb_tensor_type_print(b, t);
    plumb_buf_puts(b, " {");
    size_t n = (size_t)plumb_tensor_numel(t);
    plumb_dtype dt = t->dtype;
    for (size_t i = 0; i < n; i++) {
        plumb_buf_puts(b, "\n  ");
        if (plumb_dtype_is_complex(dt)) {
            plumb_dtype c = plumb_dtype_component(dt);
            plumb_buf_puts(b, "[");
            legacy_scalar(b, c, t->data, 2 * i);
            plumb_buf_puts(b, ", ");
            legacy_scalar(b, c, t->data, 2 * i + 1);
            plumb_buf_puts(b, "]");
        } else {
            legacy_scalar(b, dt, t->data, i);
        }
    }
}

void cli_interp_print(plumb_buf *b, const plumb_tensor *t)
{
    plumb_tensor_type_print(b, t);
    plumb_buf_puts(b, " {");
    interp_level(b, t, 0, 0, 1, true);
    plumb_buf_puts(b, "}");
}

/* ---- RUN lines ----------------------------------------------------------------- */

#define RUN_MAX_TOKENS 64

/* Splits a command at blanks as a shell would for these lines: quotes group
 * and are removed, '|' is a word of its own. Tokens are written into buf
 * (NUL-separated); returns their count, -1 when there are too many. */
static int run_tokens(const char *cmd, char *buf, char **tok)
{
    int n = 0;
    char *o = buf;
    const char *p = cmd;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return n;
        if (n == RUN_MAX_TOKENS)
            return -1;
        tok[n++] = o;
        if (*p == '|') {
            *o++ = *p++;
            *o++ = 0;
            continue;
        }
        char q = 0;
        while (*p && (q || (*p != ' ' && *p != '\t' && *p != '|'))) {
            if (!q && (*p == '"' || *p == '\'')) {
                q = *p++;
                continue;
            }
            if (q && *p == q) {
                q = 0;
                p++;
                continue;
            }
            *o++ = *p++;
        }
        *o++ = 0;
    }
}

/* Fills r from one command (the text after "RUN:", continuations joined). */
static void run_parse(cli_run_line *r, const char *cmd)
{
    size_t cl = strlen(cmd);
    char *buf = malloc(2 * cl + 2);
    char *tok[RUN_MAX_TOKENS];
    snprintf(r->prefix, sizeof r->prefix, "CHECK");
    if (!buf) {
        snprintf(r->unsupported, sizeof r->unsupported, "out of memory reading the RUN line");
        return;
    }
    int n = run_tokens(cmd, buf, tok);
    if (n < 0) {
        snprintf(r->unsupported, sizeof r->unsupported, "a RUN line of more than %d words", RUN_MAX_TOKENS);
        goto out;
    }
    for (int k = 0; k < n; k++)
        if (strcmp(tok[k], "FileCheck") == 0 || strcmp(tok[k], "not") == 0 || strncmp(tok[k], "--args", 6) == 0 ||
            strncmp(tok[k], "-args", 5) == 0)
            r->asks = true;
    int stage = 0, i = 0;
    bool interpret = false;
    while (i < n) {
        int start = i;
        while (i < n && strcmp(tok[i], "|") != 0)
            i++;
        int end = i++;   /* tok[start, end) is one command of the pipeline */
        if (stage == 0) {
            if (start < end && strcmp(tok[start], "not") == 0) {
                r->expect_error = true;
                start++;
            }
            /* 'echo "TEXT" > %t.NAME': a file a later line reads with
             * --args=@%t.NAME (api_input_arguments_from_file.mlir); kept
             * in memory, nothing is written */
            if (!r->expect_error && end - start == 4 && strcmp(tok[start], "echo") == 0 &&
                strcmp(tok[start + 2], ">") == 0 && strncmp(tok[start + 3], "%t.", 3) == 0 &&
                strlen(tok[start + 3]) < sizeof r->echo_file && i >= n) {
                snprintf(r->echo_file, sizeof r->echo_file, "%s", tok[start + 3]);
                if (!(r->echo_text = strdup(tok[start + 1])))
                    snprintf(r->unsupported, sizeof r->unsupported, "out of memory reading the RUN line");
                goto out;
            }
            /* stablehlo-interpreter: the driver's first name, run by the
             * older interpreter tests (stablehlo/tests/interpret_*.mlir),
             * which printed results in its own format */
            if (start < end && strcmp(tok[start], "stablehlo-interpreter") == 0)
                r->legacy_print = true;
            else if (start == end || strcmp(tok[start], "stablehlo-translate") != 0) {
                snprintf(r->unsupported, sizeof r->unsupported, "RUN line runs '%s'",
                         start < end ? tok[start] : "");
                goto out;
            }
            for (int k = start + 1; k < end; k++) {
                const char *t = tok[k];
                if (strcmp(t, "%s") == 0 || strcmp(t, "2>&1") == 0)
                    continue;
                if (strcmp(t, "--interpret") == 0 || strcmp(t, "-interpret") == 0)
                    interpret = true;
                else if (strcmp(t, "-split-input-file") == 0 || strcmp(t, "--split-input-file") == 0)
                    r->split = true;
                else if (strcmp(t, "--interpreter-print-dense") == 0 || strcmp(t, "-interpreter-print-dense") == 0)
                    r->print_dense = true;
                else if (strncmp(t, "--args=", 7) == 0 || strncmp(t, "-args=", 6) == 0) {
                    const char *v = strchr(t, '=') + 1;
                    if (v[0] == '@') {
                        /* only files an earlier RUN line can have written
                         * with echo (%t.NAME); .npy inputs and other paths
                         * (%t/probe1.npy, written by --probe-output-dir)
                         * are not */
                        if (strncmp(v + 1, "%t.", 3) != 0 || strchr(v, '/') || strstr(v, ".npy") ||
                            strlen(v + 1) >= sizeof r->args_file) {
                            snprintf(r->unsupported, sizeof r->unsupported, "--args read from files ('%.100s')", v);
                            goto out;
                        }
                        snprintf(r->args_file, sizeof r->args_file, "%s", v + 1);
                        continue;
                    }
                    free(r->args);
                    if (!(r->args = strdup(v))) {
                        snprintf(r->unsupported, sizeof r->unsupported, "out of memory reading the RUN line");
                        goto out;
                    }
                } else {
                    snprintf(r->unsupported, sizeof r->unsupported, "stablehlo-translate option '%.100s'", t);
                    goto out;
                }
            }
            if (!interpret) {
                snprintf(r->unsupported, sizeof r->unsupported, "stablehlo-translate without --interpret");
                goto out;
            }
        } else if (stage == 1) {
            if (strcmp(tok[start], "FileCheck") != 0) {
                snprintf(r->unsupported, sizeof r->unsupported, "output piped into '%.100s'", tok[start]);
                goto out;
            }
            bool self = false;
            for (int k = start + 1; k < end; k++) {
                const char *t = tok[k], *v = NULL;
                if (strcmp(t, "%s") == 0)
                    self = true;
                else if (strncmp(t, "--check-prefix=", 15) == 0 || strncmp(t, "-check-prefix=", 14) == 0 ||
                         strncmp(t, "--check-prefixes=", 17) == 0 || strncmp(t, "-check-prefixes=", 16) == 0)
                    v = strchr(t, '=') + 1;
                else if ((strcmp(t, "--check-prefix") == 0 || strcmp(t, "-check-prefix") == 0) && k + 1 < end)
                    v = tok[++k];
                else {
                    snprintf(r->unsupported, sizeof r->unsupported, "FileCheck option '%.100s'", t);
                    goto out;
                }
                if (v && (strchr(v, ',') || !*v || strlen(v) >= sizeof r->prefix)) {
                    snprintf(r->unsupported, sizeof r->unsupported, "FileCheck prefixes '%.100s' (one is checked)", v);
                    goto out;
                }
                if (v)
                    snprintf(r->prefix, sizeof r->prefix, "%s", v);
            }
            if (!self) {
                snprintf(r->unsupported, sizeof r->unsupported, "FileCheck against another file than the test");
                goto out;
            }
            r->filecheck = true;
        } else {
            snprintf(r->unsupported, sizeof r->unsupported, "a pipeline of more than two commands");
            goto out;
        }
        stage++;
    }
out:
    free(buf);
}

cli_run_line *cli_run_lines(const char *text, size_t len, size_t *n)
{
    cli_run_line *l = NULL;
    size_t cnt = 0, cap = 0;
    char *cmd = NULL;
    size_t cmd_len = 0;
    unsigned cmd_line = 0, line = 1;
    *n = 0;
    for (const char *p = text, *end = text + len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ln = (size_t)((nl ? nl : end) - p);
        const char *b = p, *e = p + ln;
        p += ln + 1;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        if (e - b < 7 || memcmp(b, "// RUN:", 7) != 0)
            continue;
        b += 7;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        bool more = e > b && e[-1] == '\\';
        if (more)
            e--;
        char *nc = realloc(cmd, cmd_len + (size_t)(e - b) + 2);
        if (!nc)
            goto fail;
        cmd = nc;
        if (!cmd_len)
            cmd_line = line;
        memcpy(cmd + cmd_len, b, (size_t)(e - b));
        cmd_len += (size_t)(e - b);
        cmd[cmd_len++] = ' ';
        cmd[cmd_len] = 0;
        if (more)
            continue;
        if (cnt == cap) {
            size_t nc2 = cap ? 2 * cap : 8;
            cli_run_line *nl2 = realloc(l, nc2 * sizeof *nl2);
            if (!nl2)
                goto fail;
            l = nl2;
            cap = nc2;
        }
        memset(&l[cnt], 0, sizeof l[cnt]);
        l[cnt].line = cmd_line;
        run_parse(&l[cnt], cmd);
        cnt++;
        cmd_len = 0;
    }
    free(cmd);
    *n = cnt;
    return l;
fail:
    free(cmd);
    cli_run_lines_free(l, cnt);
    return NULL;
}

void cli_run_lines_free(cli_run_line *l, size_t n)
{
    for (size_t i = 0; l && i < n; i++) {
        free(l[i].args);
        free(l[i].echo_text);
    }
    free(l);
}

int cli_args_split(const char *args, const char **starts, size_t *lens, int max)
{
    const char *b = args, *e = args + strlen(args);
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
        e--;
    if (e - b < 2 || *b != '[' || e[-1] != ']')
        return -1;
    b++;
    e--;
    const char *q = b;
    while (q < e && (*q == ' ' || *q == '\t'))
        q++;
    if (q == e)
        return 0;   /* "[]": no tensor */
    int n = 0, depth = 0;
    bool quoted = false;
    const char *el = b;
    for (const char *p = b; p <= e; p++) {
        if (p < e && quoted) {
            quoted = *p != '"';
            continue;
        }
        if (p < e && *p == '"')
            quoted = true;
        else if (p < e && (*p == '<' || *p == '[' || *p == '('))
            depth++;
        else if (p < e && (*p == '>' || *p == ']' || *p == ')'))
            depth--;
        if (p < e && (*p != ',' || depth > 0))
            continue;
        const char *s = el, *t = p;
        while (s < t && (*s == ' ' || *s == '\t' || *s == '\n'))
            s++;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\n'))
            t--;
        if (s == t || n == max)
            return -1;
        starts[n] = s;
        lens[n] = (size_t)(t - s);
        n++;
        el = p + 1;
    }
    return n;
}
