/* The StableHLO text parser (docs/format.md): a recursive-descent parser over
 * the raw bytes. Pretty forms are parsed per op class from the op table
 * (ir/ops.def); the generic form `"name"(...) <{...}> ({...}) {...} : ...`
 * works for every op. Anything plumb cannot represent is rejected with a
 * located message, never skipped. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/dotalg.h"

/* ---- parser state ---------------------------------------------------------- */

/* A name bound to one or more consecutive values: `%0:2` binds "0" to both
 * results, `%a` binds "a" to one. */
typedef struct sym {
    const char *name;
    uint32_t len;
    uint32_t next;          /* chain in the hash bucket, NO_SYM at the end */
    ir_value **vals;
    uint32_t n_vals;
} sym;

#define NO_SYM UINT32_MAX

typedef struct pending_call {
    ir_op *op;
    size_t off;             /* where the callee was written */
} pending_call;

/* A `loc(...)` as written, resolved once the whole file is read because
 * `loc(#loc3)` may name an alias defined after its use (MLIR prints the
 * `#loc3 = loc(...)` lines at the end of the file). */
typedef enum lkind { LK_UNKNOWN, LK_FILE, LK_NAME, LK_CALLSITE, LK_FUSED, LK_ALIAS } lkind;

typedef struct lnode {
    lkind kind;
    const char *str;        /* LK_FILE: file; LK_NAME: name; LK_ALIAS: alias name (not NUL-terminated) */
    uint32_t len;           /* LK_ALIAS: length of str */
    uint32_t line, col;     /* LK_FILE */
    struct lnode *a, *b;    /* LK_NAME: child or NULL; LK_CALLSITE: callee, caller */
    struct lnode **kids;    /* LK_FUSED */
    uint32_t n_kids;
    size_t off;             /* where it was written */
} lnode;

/* `#name = loc(...)` */
typedef struct loc_alias {
    const char *name;       /* without '#', not NUL-terminated */
    uint32_t len;
    lnode *node;
    size_t off;
    uint8_t state;          /* 0 unresolved, 1 being resolved (a cycle if met again), 2 resolved */
    ir_debug_loc res;
} loc_alias;

/* A debug location to fill in once aliases are known. */
typedef struct loc_use {
    ir_debug_loc *to;
    lnode *node;
} loc_use;

typedef struct P {
    const char *src;
    size_t len;
    size_t pos;
    /* loc() walks forward from the last position it resolved */
    size_t loc_off;
    uint32_t loc_line, loc_col;
    ir_module *m;
    plumb_diag *d;
    uint32_t depth, max_depth;
    uint32_t tuple_depth;       /* tuple<...> nesting being parsed (parse_tuple_type) */
    uint64_t max_bytes;     /* per-literal byte limit (ir_parse_options) */
    bool failed;
    sym *syms;
    uint32_t n_syms, cap_syms;
    uint32_t *buckets;
    uint32_t n_buckets;     /* power of two */
    uint32_t *scopes;       /* n_syms at each scope's start */
    uint32_t n_scopes, cap_scopes;
    pending_call *calls;
    uint32_t n_calls, cap_calls;
    loc_alias *aliases;
    uint32_t n_aliases, cap_aliases;
    loc_use *loc_uses;
    uint32_t n_loc_uses, cap_loc_uses;
    /* start of the innermost statement being parsed + 1 (0 = none): after
     * an error there, its trailing loc(...) is looked up for the message */
    size_t stmt_off;
    /* the builtin blobs of the `{-# ... #-}` block, read once, at the first
     * dense_resource (a model's block can be hundreds of MB) */
    struct res_blob *blobs;
    uint32_t n_blobs, cap_blobs;
    bool blobs_read;
} P;

typedef struct res_blob {
    const char *key;        /* into the source text */
    size_t key_len;
    size_t hex, nhex;       /* the hex digits after "0x" */
} res_blob;

static plumb_loc loc_at(P *p, size_t off)
{
    if (off > p->len)
        off = p->len;
    if (off < p->loc_off) {
        p->loc_off = 0;
        p->loc_line = 1;
        p->loc_col = 1;
    }
    while (p->loc_off < off) {
        if (p->src[p->loc_off] == '\n') {
            p->loc_line++;
            p->loc_col = 1;
        } else {
            p->loc_col++;
        }
        p->loc_off++;
    }
    plumb_loc l = {p->loc_line, p->loc_col};
    return l;
}

__attribute__((format(printf, 4, 5)))
static bool err_at(P *p, size_t off, plumb_code code, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        plumb_diag_vset(p->d, code, loc_at(p, off), fmt, ap);
        va_end(ap);
        p->failed = true;
    }
    return false;
}

static bool nomem(P *p)
{
    return err_at(p, p->pos, PLUMB_ERR_NOMEM, "out of memory while parsing");
}

static bool is_id_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_id_char(int c)
{
    return is_id_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static void ws(P *p)
{
    while (p->pos < p->len) {
        char c = p->src[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            p->pos++;
        } else if (c == '/' && p->pos + 1 < p->len && p->src[p->pos + 1] == '/') {
            while (p->pos < p->len && p->src[p->pos] != '\n')
                p->pos++;
        } else {
            break;
        }
    }
}

static int peek(P *p)
{
    ws(p);
    return p->pos < p->len ? (unsigned char)p->src[p->pos] : 0;
}

static bool at_end(P *p)
{
    ws(p);
    return p->pos >= p->len;
}

/* Describes what is at off for "expected X, found Y" messages. */
static void describe(P *p, size_t off, char *out, size_t cap)
{
    if (off >= p->len) {
        snprintf(out, cap, "end of input");
        return;
    }
    const char *s = p->src + off;
    size_t n = 1;
    if (is_id_start((unsigned char)*s) || *s == '%' || *s == '@' || is_digit((unsigned char)*s)) {
        while (off + n < p->len && n < 32 && (is_id_char((unsigned char)s[n]) || s[n] == '-'))
            n++;
    } else if ((unsigned char)*s >= 0x80) {
        snprintf(out, cap, "byte 0x%02X", (unsigned char)*s);
        return;
    }
    snprintf(out, cap, "'%.*s'", (int)n, s);
}

static bool expected(P *p, const char *what)
{
    ws(p);
    char found[64];
    describe(p, p->pos, found, sizeof found);
    return err_at(p, p->pos, PLUMB_ERR_PARSE, "expected %s, found %s", what, found);
}

static bool eat(P *p, char c)
{
    if (peek(p) == (unsigned char)c) {
        p->pos++;
        return true;
    }
    return false;
}

static bool expect(P *p, char c)
{
    if (eat(p, c))
        return true;
    char what[8];
    snprintf(what, sizeof what, "'%c'", c);
    return expected(p, what);
}

static bool eat_arrow(P *p)
{
    ws(p);
    if (p->pos + 1 < p->len && p->src[p->pos] == '-' && p->src[p->pos + 1] == '>') {
        p->pos += 2;
        return true;
    }
    return false;
}

/* Reads a bare identifier (letters, digits, '_', '$', '.'). */
static bool ident(P *p, const char **s, size_t *n)
{
    ws(p);
    if (p->pos >= p->len || !is_id_start((unsigned char)p->src[p->pos]))
        return false;
    size_t st = p->pos;
    while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
        p->pos++;
    *s = p->src + st;
    *n = p->pos - st;
    return true;
}

static bool peek_kw(P *p, const char *kw)
{
    ws(p);
    size_t n = strlen(kw);
    return p->pos + n <= p->len && memcmp(p->src + p->pos, kw, n) == 0 &&
           (p->pos + n == p->len || !is_id_char((unsigned char)p->src[p->pos + n]));
}

static bool eat_kw(P *p, const char *kw)
{
    if (!peek_kw(p, kw))
        return false;
    p->pos += strlen(kw);
    return true;
}

static bool expect_kw(P *p, const char *kw)
{
    if (eat_kw(p, kw))
        return true;
    char what[64];
    snprintf(what, sizeof what, "'%s'", kw);
    return expected(p, what);
}

static bool enter(P *p)
{
    if (++p->depth > p->max_depth)
        return err_at(p, p->pos, PLUMB_ERR_LIMIT, "nesting deeper than %u levels", p->max_depth);
    return true;
}

static void leave(P *p)
{
    p->depth--;
}

/* ULP counts are ui64 in StableHLO (its tests write 2^64 - 1 for "any
 * distance"): decimal, no sign, up to 2^64 - 1, stored bit for bit in the
 * int64_t fields of ir_attrs and read back as uint64_t by the verifier,
 * the printer and the checker. */
static bool parse_ulp(P *p, int64_t *out)
{
    ws(p);
    size_t st = p->pos;
    uint64_t v = 0;
    bool over = false;
    while (p->pos < p->len && is_digit((unsigned char)p->src[p->pos])) {
        if (plumb_mul_overflow_u64(v, 10, &v) || plumb_add_overflow_u64(v, (uint64_t)(p->src[p->pos] - '0'), &v))
            over = true;
        p->pos++;
    }
    if (p->pos == st)
        return expected(p, "an unsigned integer (ui64)");
    if (over)
        return err_at(p, st, PLUMB_ERR_PARSE, "ULP difference '%.*s' does not fit in ui64",
                      (int)(p->pos - st > 40 ? 40 : p->pos - st), p->src + st);
    *out = (int64_t)v;
    return true;
}

/* Integers: decimal or 0x hex, optional '-', checked against int64. */
static bool parse_i64(P *p, int64_t *out)
{
    ws(p);
    size_t st = p->pos;
    bool neg = false;
    if (p->pos < p->len && p->src[p->pos] == '-') {
        neg = true;
        p->pos++;
    }
    if (p->pos >= p->len || !is_digit((unsigned char)p->src[p->pos])) {
        p->pos = st;
        return expected(p, "an integer");
    }
    uint64_t v = 0;
    bool over = false;
    unsigned base = 10;
    if (p->src[p->pos] == '0' && p->pos + 1 < p->len && (p->src[p->pos + 1] == 'x' || p->src[p->pos + 1] == 'X')) {
        base = 16;
        p->pos += 2;
    }
    size_t digits = 0;
    while (p->pos < p->len) {
        int c = (unsigned char)p->src[p->pos];
        unsigned dv;
        if (is_digit(c))
            dv = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            dv = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            dv = (unsigned)(c - 'A' + 10);
        else
            break;
        if (plumb_mul_overflow_u64(v, base, &v) || plumb_add_overflow_u64(v, dv, &v))
            over = true;
        digits++;
        p->pos++;
    }
    if (digits == 0) {
        p->pos = st;
        return expected(p, "an integer");
    }
    if (over || (!neg && v > (uint64_t)INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1))
        return err_at(p, st, PLUMB_ERR_PARSE, "integer '%.*s' does not fit in 64 bits",
                      (int)(p->pos - st > 40 ? 40 : p->pos - st), p->src + st);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Skips one balanced attribute value or bracketed group starting at pos,
 * stopping (at depth 0) before ',' or any of the stop characters. Strings,
 * nesting and `->` are understood; nesting counts against max_depth. */
static bool skip_balanced(P *p, const char *stop)
{
    uint32_t base = p->depth;
    size_t st = p->pos;
    while (p->pos < p->len) {
        char c = p->src[p->pos];
        if (p->depth == base && (c == ',' || strchr(stop, c)))
            break;
        if (c == '"') {
            size_t q = p->pos++;
            while (p->pos < p->len && p->src[p->pos] != '"') {
                if (p->src[p->pos] == '\\' && p->pos + 1 < p->len)
                    p->pos++;
                p->pos++;
            }
            if (p->pos >= p->len)
                return err_at(p, q, PLUMB_ERR_PARSE, "unterminated string");
            p->pos++;
            continue;
        }
        if (c == '-' && p->pos + 1 < p->len && p->src[p->pos + 1] == '>') {
            p->pos += 2;
            continue;
        }
        if (c == '/' && p->pos + 1 < p->len && p->src[p->pos + 1] == '/') {
            ws(p);
            continue;
        }
        if (c == '(' || c == '[' || c == '{' || c == '<') {
            if (!enter(p))
                return false;
        } else if (c == ')' || c == ']' || c == '}' || c == '>') {
            if (p->depth == base)
                break;
            leave(p);
        }
        p->pos++;
    }
    if (p->depth != base) {
        p->depth = base;
        return err_at(p, st, PLUMB_ERR_PARSE, "unterminated attribute value (missing closing bracket)");
    }
    return true;
}

/* Captures a balanced `{...}` group as raw text (argument, result and
 * module attributes). */
static bool raw_group(P *p, const char **out)
{
    ws(p);
    size_t st = p->pos;
    if (!expect(p, '{'))
        return false;
    if (!enter(p))
        return false;
    for (;;) {
        if (!skip_balanced(p, "}"))
            return false;
        if (p->pos >= p->len)
            return err_at(p, st, PLUMB_ERR_PARSE, "unterminated attribute dictionary");
        if (p->src[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->src[p->pos] == '}')
            break;
        return expected(p, "'}'");
    }
    p->pos++;
    leave(p);
    *out = plumb_arena_strndup(p->m->arena, p->src + st, p->pos - st);
    return *out ? true : nomem(p);
}

/* ---- symbols --------------------------------------------------------------- */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static sym *lookup(P *p, const char *name, size_t len)
{
    if (!p->n_buckets)
        return NULL;
    for (uint32_t i = p->buckets[hash_name(name, len) & (p->n_buckets - 1)]; i != NO_SYM; i = p->syms[i].next)
        if (p->syms[i].len == len && memcmp(p->syms[i].name, name, len) == 0)
            return &p->syms[i];
    return NULL;
}

/* True when name is bound in the innermost scope. */
static bool defined_here(P *p, const char *name, size_t len)
{
    sym *s = lookup(p, name, len);
    uint32_t start = p->n_scopes ? p->scopes[p->n_scopes - 1] : 0;
    return s && (uint32_t)(s - p->syms) >= start;
}

static bool rehash(P *p, uint32_t nb)
{
    uint32_t *b = plumb_malloc((size_t)nb * sizeof *b);
    if (!b)
        return false;
    for (uint32_t i = 0; i < nb; i++)
        b[i] = NO_SYM;
    /* Ascending order keeps later (shadowing) symbols at the chain heads. */
    for (uint32_t i = 0; i < p->n_syms; i++) {
        uint32_t h = hash_name(p->syms[i].name, p->syms[i].len) & (nb - 1);
        p->syms[i].next = b[h];
        b[h] = i;
    }
    plumb_free(p->buckets, (size_t)p->n_buckets * sizeof *p->buckets);
    p->buckets = b;
    p->n_buckets = nb;
    return true;
}

static bool bind(P *p, const char *name, size_t len, ir_value **vals, uint32_t n)
{
    if (p->n_syms == p->cap_syms) {
        uint32_t nc = p->cap_syms ? p->cap_syms * 2 : 64;
        sym *s = plumb_realloc(p->syms, (size_t)p->cap_syms * sizeof *s, (size_t)nc * sizeof *s);
        if (!s)
            return nomem(p);
        p->syms = s;
        p->cap_syms = nc;
    }
    if (p->n_syms + 1 > p->n_buckets / 2 && !rehash(p, p->n_buckets ? p->n_buckets * 2 : 128))
        return nomem(p);
    sym *s = &p->syms[p->n_syms];
    s->name = name;
    s->len = (uint32_t)len;
    s->vals = vals;
    s->n_vals = n;
    uint32_t h = hash_name(name, len) & (p->n_buckets - 1);
    s->next = p->buckets[h];
    p->buckets[h] = p->n_syms++;
    return true;
}

static bool push_scope(P *p)
{
    if (p->n_scopes == p->cap_scopes) {
        uint32_t nc = p->cap_scopes ? p->cap_scopes * 2 : 16;
        uint32_t *s = plumb_realloc(p->scopes, (size_t)p->cap_scopes * sizeof *s, (size_t)nc * sizeof *s);
        if (!s)
            return nomem(p);
        p->scopes = s;
        p->cap_scopes = nc;
    }
    p->scopes[p->n_scopes++] = p->n_syms;
    return true;
}

static void pop_scope(P *p)
{
    uint32_t start = p->scopes[--p->n_scopes];
    while (p->n_syms > start) {
        sym *s = &p->syms[--p->n_syms];
        uint32_t h = hash_name(s->name, s->len) & (p->n_buckets - 1);
        p->buckets[h] = s->next;   /* s was the chain head (LIFO) */
    }
}

/* ---- types ----------------------------------------------------------------- */

/* Element type spellings that exist in StableHLO but not in plumb's set. */
static bool looks_like_elem_type(const char *s, size_t n)
{
    static const char *const pre[] = {"i", "ui", "si", "f", "bf", "tf", "index", "complex"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) {
        size_t k = strlen(pre[i]);
        bool word = strcmp(pre[i], "index") == 0 || strcmp(pre[i], "complex") == 0;
        if (n >= k && memcmp(s, pre[i], k) == 0 && (word ? n == k : n > k && is_digit((unsigned char)s[k])))
            return true;
    }
    return false;
}

static bool parse_bounds(P *p, ir_type *t, bool list_form)
{
    uint32_t i = 0;
    size_t st = p->pos;
    if (!(list_form ? expect(p, '[') : expect(p, '<')))
        return false;
    if (!(list_form ? eat(p, ']') : eat(p, '>'))) {
        do {
            if (i >= t->rank)
                return err_at(p, st, PLUMB_ERR_PARSE, "bounds list has more entries than the rank %u", t->rank);
            if (eat(p, '?')) {
                t->bounds[i] = PLUMB_NO_BOUND;
            } else {
                size_t boff = p->pos;
                int64_t b;
                if (!parse_i64(p, &b))
                    return false;
                if (b < 0)
                    return err_at(p, boff, PLUMB_ERR_PARSE, "bound %lld is negative", (long long)b);
                if (t->dims[i] != PLUMB_DIM_DYN)
                    return err_at(p, boff, PLUMB_ERR_PARSE, "bound given for static dimension %u", i);
                t->bounds[i] = b;
            }
            i++;
        } while (eat(p, ','));
        if (!(list_form ? expect(p, ']') : expect(p, '>')))
            return false;
    }
    if (i != t->rank)
        return err_at(p, st, PLUMB_ERR_PARSE, "bounds list has %u entries but the rank is %u", i, t->rank);
    return true;
}

static bool parse_type(P *p, ir_type *t);
static bool grow_arr(P *p, void **arr, uint32_t n, uint32_t *cap, size_t elem);

/* `tuple<T, ...>` after the keyword (docs/spec/tuple.md): elements are
 * tensor or tuple types; `tuple<>` is the empty tuple. The nesting depth
 * and the leaf count are checked as they grow, before the next element is
 * allocated, so a short text cannot make a huge type. */
static bool parse_tuple_type(P *p, size_t st, ir_type *t)
{
    if (p->pos >= p->len || p->src[p->pos] != '<')
        return expected(p, "'<' after 'tuple'");
    p->pos++;
    if (++p->tuple_depth > IR_TUPLE_MAX_DEPTH)
        return err_at(p, st, PLUMB_ERR_LIMIT, "tuple types nest deeper than %d levels", IR_TUPLE_MAX_DEPTH);
    ir_type *el = NULL;
    uint32_t n = 0, cap = 0;
    uint64_t leaves = 0;
    if (!eat(p, '>')) {
        do {
            if (!grow_arr(p, (void **)&el, n, &cap, sizeof *el))
                return false;
            if (!parse_type(p, &el[n]))
                return false;
            leaves += ir_type_leaf_count(&el[n]);
            if (++n > IR_TUPLE_MAX_LEAVES || leaves > IR_TUPLE_MAX_LEAVES)
                return err_at(p, st, PLUMB_ERR_LIMIT, "tuple type holds more than %d tensors", IR_TUPLE_MAX_LEAVES);
        } while (eat(p, ','));
        if (!expect(p, '>'))
            return false;
    }
    p->tuple_depth--;
    return ir_type_tuple_make(p->m, el, n, t) || nomem(p);
}

static bool parse_type(P *p, ir_type *t)
{
    ws(p);
    size_t st = p->pos;
    const char *s;
    size_t n;
    if (peek(p) == '!') {
        size_t e = p->pos + 1;
        while (e < p->len && is_id_char((unsigned char)p->src[e]))
            e++;
        return err_at(p, st, PLUMB_ERR_UNSUPPORTED, "unsupported: type '%.*s' (plumb runs tensor types only)",
                      (int)(e - st > 40 ? 40 : e - st), p->src + st);
    }
    if (!ident(p, &s, &n))
        return expected(p, "a type");
    if (n == 5 && memcmp(s, "tuple", 5) == 0)
        return parse_tuple_type(p, st, t);
    if (n != 6 || memcmp(s, "tensor", 6) != 0) {
        if (looks_like_elem_type(s, n))
            return err_at(p, st, PLUMB_ERR_UNSUPPORTED, "unsupported: type '%.*s' (plumb runs ranked tensor types only)", (int)n, s);
        p->pos = st;
        return expected(p, "a tensor type");
    }
    /* `tensor <2x3xf32>`: MLIR's lexer lets blanks separate the keyword
     * and '<' (IREE's e2e tests write it so). */
    if (!eat(p, '<'))
        return expected(p, "'<' after 'tensor'");
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        t->bounds[i] = PLUMB_NO_BOUND;
    uint32_t rank = 0;
    /* dims: (INT | '?') 'x' ... then the element type */
    for (;;) {
        ws(p);
        size_t doff = p->pos;
        int c = peek(p);
        int64_t dim;
        if (c == '*')
            return err_at(p, doff, PLUMB_ERR_UNSUPPORTED, "unsupported: unranked tensor type");
        if (c == '?') {
            p->pos++;
            dim = PLUMB_DIM_DYN;
        } else if (is_digit(c)) {
            /* a dim is digits immediately followed by 'x' */
            size_t e = p->pos;
            while (e < p->len && is_digit((unsigned char)p->src[e]))
                e++;
            if (e >= p->len || p->src[e] != 'x')
                break;
            /* decimal only: "0xf32" is a zero dimension, not hex */
            uint64_t v = 0;
            for (; p->pos < e; p->pos++)
                if (plumb_mul_overflow_u64(v, 10, &v) || plumb_add_overflow_u64(v, (uint64_t)(p->src[p->pos] - '0'), &v) ||
                    v > (uint64_t)INT64_MAX)
                    return err_at(p, doff, PLUMB_ERR_PARSE, "dimension '%.*s' does not fit in 64 bits",
                                  (int)(e - doff > 40 ? 40 : e - doff), p->src + doff);
            dim = (int64_t)v;
        } else {
            break;
        }
        if (p->pos >= p->len || p->src[p->pos] != 'x')
            return expected(p, "'x' after a dimension");
        p->pos++;
        if (rank >= PLUMB_MAX_RANK)
            return err_at(p, doff, PLUMB_ERR_UNSUPPORTED, "unsupported: tensor rank above %d", PLUMB_MAX_RANK);
        t->dims[rank++] = dim;
    }
    t->rank = rank;
    size_t eoff = p->pos;
    if (!ident(p, &s, &n)) {
        if (peek(p) == '!') {
            /* Name the whole type, through its matching '>': a quantized
             * type's parameters hold commas and braces
             * (!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>), and a name cut
             * at a fixed width or at the first comma hides which scales
             * the file asked for. Capped so a runaway '<' stays one line;
             * inside the brackets a character no type holds (a signature's
             * ')' or '->', an SSA name, '=') means the '<' was never closed:
             * the name stops there, marked '...' (a later '>' is someone
             * else's). */
            size_t e = eoff, cap = eoff + 96 < p->len ? eoff + 96 : p->len;
            int depth = 0;
            while (e < cap && p->src[e] != '\n') {
                if (depth > 0 && (strchr("()%@=\"", p->src[e]) ||
                                  (p->src[e] == '-' && e + 1 < p->len && p->src[e + 1] == '>'))) {
                    while (e > eoff && p->src[e - 1] == ' ')
                        e--;
                    break;
                }
                char c = p->src[e++];
                if (c == '<') {
                    depth++;
                } else if (c == '>') {
                    if (depth == 0) { /* the tensor's own '>' */
                        e--;
                        break;
                    }
                    if (--depth == 0)
                        break;
                } else if (depth == 0 && (c == ',' || c == ' ' || c == ')')) {
                    e--;
                    break;
                }
            }
            return err_at(p, eoff, PLUMB_ERR_UNSUPPORTED,
                          "unsupported: element type '%.*s%s' (plumb runs no quantized or custom element types)",
                          (int)(e - eoff), p->src + eoff, depth > 0 ? "..." : "");
        }
        return expected(p, "an element type");
    }
    /* complex<f32>: the spelling runs through its closing '>' */
    if (n == 7 && memcmp(s, "complex", 7) == 0 && peek(p) == '<') {
        size_t e = p->pos + 1;
        while (e < p->len && is_id_char((unsigned char)p->src[e]))
            e++;
        if (e < p->len && p->src[e] == '>') {
            p->pos = e + 1;
            n = p->pos - (size_t)(s - p->src);
        }
    }
    plumb_dtype dt;
    if (!plumb_dtype_parse(s, n, &dt)) {
        if (looks_like_elem_type(s, n) || (n > 8 && memcmp(s, "complex<", 8) == 0))
            return err_at(p, eoff, PLUMB_ERR_UNSUPPORTED, "unsupported: element type '%.*s'", (int)(n > 40 ? 40 : n), s);
        p->pos = eoff;
        return expected(p, "an element type");
    }
    t->dtype = dt;
    if (eat(p, ',')) {
        ws(p);
        size_t aoff = p->pos;
        if (peek_kw(p, "#stablehlo.bounds")) {
            p->pos += strlen("#stablehlo.bounds");
            if (!parse_bounds(p, t, false))
                return false;
        } else if (peek_kw(p, "#stablehlo.type_extensions")) {
            p->pos += strlen("#stablehlo.type_extensions");
            if (!expect(p, '<') || !expect_kw(p, "bounds") || !expect(p, '=') || !parse_bounds(p, t, true) || !expect(p, '>'))
                return false;
        } else {
            return err_at(p, aoff, PLUMB_ERR_UNSUPPORTED, "unsupported: tensor encoding (plumb reads #stablehlo.bounds only)");
        }
    }
    if (!expect(p, '>'))
        return false;
    return true;
}

/* ---- value uses and small syntax ------------------------------------------ */

static bool value_name(P *p, const char **s, size_t *n)
{
    ws(p);
    if (p->pos >= p->len || p->src[p->pos] != '%')
        return expected(p, "a value ('%name')");
    size_t st = ++p->pos;
    while (p->pos < p->len && (is_id_char((unsigned char)p->src[p->pos]) || p->src[p->pos] == '-'))
        p->pos++;
    if (p->pos == st)
        return expected(p, "a value name after '%'");
    *s = p->src + st;
    *n = p->pos - st;
    return true;
}

static bool parse_use(P *p, ir_value **out)
{
    ws(p);
    size_t off = p->pos;
    const char *s;
    size_t n;
    if (!value_name(p, &s, &n))
        return false;
    int64_t idx = 0;
    bool has_idx = false;
    if (p->pos < p->len && p->src[p->pos] == '#') {
        p->pos++;
        if (p->pos >= p->len || !is_digit((unsigned char)p->src[p->pos]))
            return expected(p, "a result index after '#'");
        if (!parse_i64(p, &idx))
            return false;
        has_idx = true;
    }
    sym *sy = lookup(p, s, n);
    if (!sy)
        return err_at(p, off, PLUMB_ERR_PARSE, "use of undefined value '%%%.*s'", (int)n, s);
    if (idx < 0 || (uint64_t)idx >= sy->n_vals)
        return err_at(p, off, PLUMB_ERR_PARSE, "result index #%lld out of range: '%%%.*s' has %u result%s",
                      (long long)idx, (int)n, s, sy->n_vals, sy->n_vals == 1 ? "" : "s");
    (void)has_idx;
    *out = sy->vals[idx];
    return true;
}

/* ---- op under construction ------------------------------------------------- */

typedef struct def_name {
    const char *name;
    size_t len;
    uint32_t count;
    size_t off;
} def_name;

typedef struct opb {
    plumb_opcode code;
    size_t off;                 /* where the op name was written */
    const char *name;           /* as written, for messages */
    size_t name_len;
    ir_value **ops;
    uint32_t n_ops, cap_ops;
    size_t *op_offs;            /* where each operand was written */
    ir_type *rt;                /* result types */
    uint32_t n_rt, cap_rt;
    ir_type *ot;                /* declared operand types, or NULL */
    uint32_t n_ot;
    size_t ot_off;
    ir_attrs a;
    ir_block *regs;
    uint32_t n_regs, cap_regs;
    size_t regs_off;            /* where the region list was written */
    uint32_t n_defs;
    uint32_t seen;              /* bit i: simple_attrs[i] was written */
    bool check_eq;              /* written as the older custom_call @check.eq (legacy_check_eq) */
    /* chlo.scan's generic form: operandSegmentSizes (inputs, inits) and
     * resultSegmentSizes (outputs, carries), checked against each other
     * and the operand count once the op is read (scan_segments) */
    int64_t seg_ops[2], seg_res[2];
    bool has_seg_ops, has_seg_res;
    /* a custom_call @mhlo.NAME (mhlo_target): its `mhlo.attributes` dict is
     * read as the op's attributes (mhlo_attr_dict); mhlo_dict: it was
     * written, mhlo_k: it gave top-k's k */
    bool mhlo, mhlo_dict, mhlo_k;
} opb;

static void attrs_default(ir_attrs *a)
{
    memset(a, 0, sizeof *a);
    a->dimension = -1;
    a->index_vector_dim = -1;
    a->max_ulp = 3;
    a->tolerance = 1e-4;
}

static bool grow_arr(P *p, void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 4;
    void *na = plumb_arena_array(p->m->arena, nc, elem);
    if (!na)
        return nomem(p);
    if (n)
        memcpy(na, *arr, (size_t)n * elem);
    *arr = na;
    *cap = nc;
    return true;
}

static bool push_operand(P *p, opb *ob, ir_value *v, size_t off)
{
    if (ob->n_ops == ob->cap_ops) {
        uint32_t nc = ob->cap_ops ? ob->cap_ops * 2 : 4;
        ir_value **no = plumb_arena_array(p->m->arena, nc, sizeof *no);
        size_t *oo = plumb_arena_array(p->m->arena, nc, sizeof *oo);
        if (!no || !oo)
            return nomem(p);
        if (ob->n_ops) {
            memcpy(no, ob->ops, ob->n_ops * sizeof *no);
            memcpy(oo, ob->op_offs, ob->n_ops * sizeof *oo);
        }
        ob->ops = no;
        ob->op_offs = oo;
        ob->cap_ops = nc;
    }
    ob->op_offs[ob->n_ops] = off;
    ob->ops[ob->n_ops++] = v;
    return true;
}

static bool add_operand(P *p, opb *ob)
{
    ws(p);
    size_t off = p->pos;
    ir_value *v;
    return parse_use(p, &v) && push_operand(p, ob, v, off);
}

static bool parse_operand_list(P *p, opb *ob, char close)
{
    if (eat(p, close))
        return true;
    do {
        if (!add_operand(p, ob))
            return false;
    } while (eat(p, ','));
    return expect(p, close);
}

/* A parenthesized or bare list of types into (arr, n). */
static bool parse_types(P *p, ir_type **arr, uint32_t *n, bool parens)
{
    uint32_t cap = 0;
    *arr = NULL;
    *n = 0;
    if (parens) {
        if (!expect(p, '('))
            return false;
        if (eat(p, ')'))
            return true;
    }
    do {
        if (!grow_arr(p, (void **)arr, *n, &cap, sizeof **arr))
            return false;
        if (!parse_type(p, &(*arr)[*n]))
            return false;
        (*n)++;
    } while (eat(p, ','));
    return parens ? expect(p, ')') : true;
}

/* `-> T` or `-> (T, ...)` (the arrow already consumed). */
static bool parse_result_types(P *p, opb *ob)
{
    if (peek(p) == '(')
        return parse_types(p, &ob->rt, &ob->n_rt, true);
    return parse_types(p, &ob->rt, &ob->n_rt, false) && (ob->n_rt == 1 || expected(p, "one result type"));
}

/* `(T, ...) -> R` */
static bool sig_functional(P *p, opb *ob)
{
    ws(p);
    ob->ot_off = p->pos;
    if (!parse_types(p, &ob->ot, &ob->n_ot, true))
        return false;
    if (!eat_arrow(p))
        return expected(p, "'->'");
    return parse_result_types(p, ob);
}

/* Elementwise signatures: `T` (operands and result alike), `P, T` (select),
 * `T -> T` or `(T, ...) -> T`. */
static bool sig_ew(P *p, opb *ob)
{
    if (peek(p) == '(')
        return sig_functional(p, ob);
    ws(p);
    size_t off = p->pos;
    ir_type *ts;
    uint32_t n;
    if (!parse_types(p, &ts, &n, false))
        return false;
    if (eat_arrow(p)) {
        ob->ot = ts;
        ob->n_ot = n;
        ob->ot_off = off;
        return parse_result_types(p, ob);
    }
    ob->rt = plumb_arena_array(p->m->arena, 1, sizeof *ob->rt);
    ob->ot = plumb_arena_array(p->m->arena, ob->n_ops ? ob->n_ops : 1, sizeof *ob->ot);
    if (!ob->rt || !ob->ot)
        return nomem(p);
    ob->ot_off = off;
    if (n == 1) {
        ob->rt[0] = ts[0];
        for (uint32_t i = 0; i < ob->n_ops; i++)
            ob->ot[i] = ts[0];
        /* `complex %re, %im : T` names only the complex result type; the
         * operands have its component type (StableHLO's pretty form) */
        if (ob->code == PLUMB_OP_COMPLEX)
            for (uint32_t i = 0; i < ob->n_ops; i++)
                ob->ot[i].dtype = plumb_dtype_component(ts[0].dtype);
    } else if (n == 2 && ob->code == PLUMB_OP_SELECT && ob->n_ops == 3) {
        ob->rt[0] = ts[1];
        ob->ot[0] = ts[0];
        ob->ot[1] = ts[1];
        ob->ot[2] = ts[1];
    } else {
        return err_at(p, off, PLUMB_ERR_PARSE, "expected one type, or '(operand types) -> result type', found %u types", n);
    }
    ob->n_rt = 1;
    ob->n_ot = ob->n_ops;
    return true;
}

static bool parse_int_list_into(P *p, ir_ints *out, char open, char close)
{
    if (!expect(p, open))
        return false;
    int64_t small[32];
    int64_t *v = small;
    uint32_t n = 0, cap = 32;
    bool ok = true;
    if (!eat(p, close)) {
        do {
            if (n == cap) {
                int64_t *nv = plumb_arena_array(p->m->arena, (size_t)cap * 2, sizeof *nv);
                if (!nv) {
                    ok = nomem(p);
                    break;
                }
                memcpy(nv, v, (size_t)n * sizeof *v);
                v = nv;
                cap *= 2;
            }
            if (!parse_i64(p, &v[n])) {
                ok = false;
                break;
            }
            n++;
        } while (eat(p, ','));
        if (ok)
            ok = expect(p, close);
    }
    if (!ok)
        return false;
    *out = ir_ints_make(p->m, v, n);
    if (n && !out->v)
        return nomem(p);
    return true;
}

static bool parse_int_list(P *p, ir_ints *out)
{
    return parse_int_list_into(p, out, '[', ']');
}

/* `name =` keyword argument of a pretty form. */
static bool kwarg(P *p, const char *name)
{
    return expect_kw(p, name) && expect(p, '=');
}

/* ---- attributes ------------------------------------------------------------ */

/* A sub-parser over [start, end) of the same text, for interpreting one
 * attribute value that was skipped as a balanced group. */
typedef struct span {
    size_t start, end;
} span;

static bool at_span_end(P *p, span v)
{
    ws(p);
    return p->pos >= v.end;
}

static bool span_done(P *p, span v, const char *name)
{
    if (!at_span_end(p, v))
        return err_at(p, p->pos, PLUMB_ERR_PARSE, "unexpected text in attribute '%s'", name);
    return true;
}

/* Int list attribute: array<i64: ...>, dense<[...]> : tensor<...>, [..]. */
static bool attr_ints(P *p, ir_ints *out)
{
    if (eat_kw(p, "array")) {
        if (!expect(p, '<') || !expect_kw(p, "i64"))
            return false;
        if (eat(p, '>')) {
            out->v = NULL;
            out->n = 0;
            return true;
        }
        if (!expect(p, ':'))
            return false;
        p->pos--;   /* reuse the list parser with ':' as the opener */
        return parse_int_list_into(p, out, ':', '>');
    }
    if (eat_kw(p, "dense")) {
        if (!expect(p, '<'))
            return false;
        if (eat(p, '>')) {
            out->v = NULL;
            out->n = 0;
        } else if (peek(p) == '[') {
            if (!parse_int_list(p, out) || !expect(p, '>'))
                return false;
        } else {
            int64_t v;
            if (!parse_i64(p, &v) || !expect(p, '>'))
                return false;
            *out = ir_ints_make(p->m, &v, 1);
        }
        if (eat(p, ':')) {
            ir_type t;
            size_t toff = p->pos;
            if (!parse_type(p, &t))
                return false;
            if (t.rank != 1 || !plumb_dtype_is_int(t.dtype))
                return err_at(p, toff, PLUMB_ERR_PARSE, "expected a rank-1 integer tensor type for an index list");
            if (out->n == 1 && t.dims[0] != 1) {
                /* a splat: repeat the one value */
                if (t.dims[0] < 0 || t.dims[0] > 4096)
                    return err_at(p, toff, PLUMB_ERR_PARSE, "index list of %lld entries is too long", (long long)t.dims[0]);
                int64_t *v = plumb_arena_array(p->m->arena, (size_t)t.dims[0], sizeof *v);
                if (!v && t.dims[0])
                    return nomem(p);
                for (int64_t i = 0; i < t.dims[0]; i++)
                    v[i] = out->v[0];
                out->v = t.dims[0] ? v : NULL;
                out->n = (uint32_t)t.dims[0];
            } else if (t.dims[0] != (int64_t)out->n) {
                return err_at(p, toff, PLUMB_ERR_PARSE, "index list has %u entries but its type has %lld", out->n, (long long)t.dims[0]);
            }
        }
        return true;
    }
    return parse_int_list(p, out);
}

/* Integer attribute: `5 : i64` or `5`. */
static bool attr_int(P *p, int64_t *out)
{
    if (!parse_i64(p, out))
        return false;
    if (eat(p, ':')) {
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "an integer type");
    }
    return true;
}

static bool attr_bool(P *p, bool *out)
{
    if (eat_kw(p, "true"))
        *out = true;
    else if (eat_kw(p, "false"))
        *out = false;
    else
        return expected(p, "'true' or 'false'");
    return true;
}

static bool attr_float(P *p, double *out, bool suffix)
{
    ws(p);
    size_t st = p->pos;
    size_t e = st;
    while (e < p->len && (is_id_char((unsigned char)p->src[e]) || p->src[e] == '-' || p->src[e] == '+'))
        e++;
    if (e == st || e - st > 64)
        return expected(p, "a number");
    char buf[72];
    memcpy(buf, p->src + st, e - st);
    buf[e - st] = 0;
    char *endp;
    errno = 0;
    double v = strtod(buf, &endp);
    if (*endp || errno == ERANGE)
        return err_at(p, st, PLUMB_ERR_PARSE, "expected a number, found '%s'", buf);
    p->pos = e;
    *out = v;
    if (suffix && eat(p, ':')) {
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "a float type");
    }
    return true;
}

/* An f32 attribute (batch norm's epsilon): a decimal, rounded once to f32
 * as MLIR does, or MLIR's hexadecimal bit pattern (`0x3727C5AC : f32`);
 * kept as the f32 value it denotes. */
static bool attr_f32(P *p, double *out)
{
    ws(p);
    size_t st = p->pos;
    if (p->pos + 2 < p->len && p->src[st] == '0' && (p->src[st + 1] == 'x' || p->src[st + 1] == 'X')) {
        size_t e = st + 2;
        uint64_t bits = 0;
        for (; e < p->len && e - st < 12; e++) {
            char ch = p->src[e];
            int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
            if (v < 0)
                break;
            bits = bits * 16 + (uint64_t)v;
        }
        if (e - st != 10 || (e < p->len && is_id_char((unsigned char)p->src[e])))
            return err_at(p, st, PLUMB_ERR_PARSE, "expected an f32 bit pattern of 8 hexadecimal digits");
        p->pos = e;
        float f;
        uint32_t b32 = (uint32_t)bits;
        memcpy(&f, &b32, sizeof f);
        *out = f;
    } else {
        double d;
        if (!attr_float(p, &d, false))
            return false;
        *out = (float)d;
    }
    if (eat(p, ':')) {
        ws(p);
        size_t off = p->pos;
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "f32");
        if (n != 3 || memcmp(s, "f32", 3) != 0)
            return err_at(p, off, PLUMB_ERR_PARSE, "epsilon must be an f32 attribute, found '%.*s'", (int)n, s);
    }
    return true;
}

typedef struct enum_name {
    const char *name;
    int value;
} enum_name;

static const enum_name cmp_dirs[] = {{"EQ", IR_CMP_EQ}, {"NE", IR_CMP_NE}, {"LT", IR_CMP_LT}, {"LE", IR_CMP_LE}, {"GT", IR_CMP_GT}, {"GE", IR_CMP_GE}, {NULL, 0}};
static const enum_name cmp_types[] = {{"NOTYPE", IR_CMP_TYPE_NONE}, {"FLOAT", IR_CMP_FLOAT}, {"TOTALORDER", IR_CMP_TOTALORDER}, {"SIGNED", IR_CMP_SIGNED}, {"UNSIGNED", IR_CMP_UNSIGNED}, {"WEAKORDER", IR_CMP_WEAKORDER}, {NULL, 0}};
static const enum_name precisions[] = {{"DEFAULT", IR_PREC_DEFAULT}, {"HIGH", IR_PREC_HIGH}, {"HIGHEST", IR_PREC_HIGHEST}, {NULL, 0}};
static const enum_name rng_algs[] = {{"DEFAULT", IR_RNG_DEFAULT}, {"THREE_FRY", IR_RNG_THREE_FRY}, {"PHILOX", IR_RNG_PHILOX}, {NULL, 0}};
static const enum_name transposes[] = {{"NO_TRANSPOSE", IR_TRANSPOSE_NO_TRANSPOSE}, {"TRANSPOSE", IR_TRANSPOSE_TRANSPOSE}, {"ADJOINT", IR_TRANSPOSE_ADJOINT}, {NULL, 0}};
static const enum_name fft_types[] = {{"FFT", IR_FFT_FFT}, {"IFFT", IR_FFT_IFFT}, {"RFFT", IR_FFT_RFFT}, {"IRFFT", IR_FFT_IRFFT}, {NULL, 0}};

static bool parse_enum(P *p, const enum_name *tab, const char *what, int *out)
{
    ws(p);
    size_t off = p->pos;
    const char *s;
    size_t n;
    if (ident(p, &s, &n))
        for (const enum_name *e = tab; e->name; e++)
            if (strlen(e->name) == n && memcmp(e->name, s, n) == 0) {
                *out = e->value;
                return true;
            }
    p->pos = off;
    return expected(p, what);
}

/* `DIALECT<KIND VALUE>` or the bare VALUE. DIALECT is the op's own:
 * #stablehlo on stablehlo ops, #chlo on chlo ops (chlo.ragged_dot's
 * precision_config is #chlo<precision ...>); StableHLO's parser refuses
 * the other dialect's attribute, and so does plumb, at its position. */
static bool attr_enum(P *p, const char *dialect, const char *kind, const enum_name *tab, const char *what, int *out)
{
    ws(p);
    size_t off = p->pos;
    if (eat_kw(p, dialect)) {
        if (!expect(p, '<') || !expect_kw(p, kind) || !parse_enum(p, tab, what, out) || !expect(p, '>'))
            return false;
        return true;
    }
    const char *other = strcmp(dialect, "#chlo") == 0 ? "#stablehlo" : "#chlo";
    if (peek_kw(p, other))
        return err_at(p, off, PLUMB_ERR_PARSE, "expected %s (%s<%s ...>), found a %s attribute: this op is a %s op",
                      what, dialect, kind, other, dialect + 1);
    return parse_enum(p, tab, what, out);
}

static bool precision_list(P *p, const char *dialect, ir_attrs *a)
{
    if (!expect(p, '['))
        return false;
    uint32_t n = 0;
    if (!eat(p, ']')) {
        do {
            int v;
            if (!attr_enum(p, dialect, "precision", precisions, "a precision (DEFAULT, HIGH or HIGHEST)", &v))
                return false;
            if (n < 2)
                a->precision[n] = (ir_precision)v;
            n++;
        } while (eat(p, ','));
        if (!expect(p, ']'))
            return false;
    }
    if (n != 0 && n != 2)
        return err_at(p, p->pos, PLUMB_ERR_PARSE, "precision config needs 2 entries, found %u", n);
    a->has_precision = n == 2;
    return true;
}

/* The body `<lhs_precision_type = T, rhs_precision_type = T,
 * accumulation_type = T, lhs_component_count = N, rhs_component_count = N,
 * num_primitive_operations = N, allow_imprecise_accumulation = B>` of a
 * dot algorithm (pretty form `algorithm = <...>`, generic form
 * `algorithm = #stablehlo.dot_algorithm<...>`): every field once, in any
 * order (docs/spec/dotalg.md). */
static bool dot_algorithm_body(P *p, ir_dot_algorithm *alg)
{
    static const char *const names[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                                        "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                                        "allow_imprecise_accumulation"};
    ws(p);
    size_t start = p->pos;
    if (!expect(p, '<'))
        return false;
    unsigned seen = 0;
    memset(alg, 0, sizeof *alg);
    do {
        ws(p);
        size_t off = p->pos;
        const char *s;
        size_t n;
        unsigned f = 7;
        if (ident(p, &s, &n))
            for (f = 0; f < 7; f++)
                if (strlen(names[f]) == n && memcmp(names[f], s, n) == 0)
                    break;
        if (f == 7) {
            p->pos = off;
            return expected(p, "a dot algorithm field (lhs_precision_type, rhs_precision_type, accumulation_type, "
                               "lhs_component_count, rhs_component_count, num_primitive_operations or "
                               "allow_imprecise_accumulation)");
        }
        if (seen & (1u << f))
            return err_at(p, off, PLUMB_ERR_PARSE, "dot algorithm field '%s' is given twice", names[f]);
        seen |= 1u << f;
        if (!expect(p, '='))
            return false;
        if (f < 3) {
            ws(p);
            size_t toff = p->pos;
            int t;
            if (!ident(p, &s, &n))
                return expected(p, "a float type or tf32");
            if (!ir_dotalg_type_parse(s, n, &t))
                return err_at(p, toff, PLUMB_ERR_PARSE, "%s must be a float type or tf32 (StableHLO I%u), found '%.*s'",
                              names[f], 8 + f, (int)n, s);
            int16_t *dst = f == 0 ? &alg->lhs_precision_type : f == 1 ? &alg->rhs_precision_type : &alg->accumulation_type;
            *dst = (int16_t)t;
        } else if (f < 6) {
            int64_t *dst = f == 3 ? &alg->lhs_component_count : f == 4 ? &alg->rhs_component_count
                                                                      : &alg->num_primitive_operations;
            if (!parse_i64(p, dst))
                return false;
        } else if (!attr_bool(p, &alg->allow_imprecise_accumulation)) {
            return false;
        }
    } while (eat(p, ','));
    if (!expect(p, '>'))
        return false;
    for (unsigned f = 0; f < 7; f++)
        if (!(seen & (1u << f)))
            return err_at(p, start, PLUMB_ERR_PARSE, "dot algorithm lacks the field '%s'", names[f]);
    alg->present = true;
    return true;
}

/* The fields of a #stablehlo.gather / scatter / dot attribute. */
typedef struct field {
    const char *name;
    ir_ints *ints;
    int64_t *scalar;
} field;

/* `name = value, ...>`: one or more fields of tag's attribute, through
 * the closing '>'. A comma may follow the last field, as StableHLO's
 * parseStruct allows (it reads a '>' after any comma): IREE's and other
 * hand-written tests put each field on its own line, each with a comma. */
static bool struct_fields(P *p, const char *tag, field *fields)
{
    bool first = true;
    do {
        ws(p);
        if (!first && p->pos < p->len && p->src[p->pos] == '>')
            break;
        first = false;
        size_t off = p->pos;
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "a field name");
        field *f = NULL;
        for (field *q = fields; q->name; q++)
            if (strlen(q->name) == n && memcmp(q->name, s, n) == 0)
                f = q;
        if (!f)
            return err_at(p, off, PLUMB_ERR_UNSUPPORTED, "unsupported: field '%.*s' in %s", (int)n, s, tag);
        if (!expect(p, '='))
            return false;
        if (f->ints ? !parse_int_list(p, f->ints) : !parse_i64(p, f->scalar))
            return false;
    } while (eat(p, ','));
    return expect(p, '>');
}

static bool struct_attr(P *p, const char *tag, field *fields)
{
    if (!expect_kw(p, tag) || !expect(p, '<'))
        return false;
    if (eat(p, '>'))
        return true;
    return struct_fields(p, tag, fields);
}

static bool dense_value(P *p, ir_attrs *a);

/* Attributes that are a plain integer list, integer or boolean field of
 * ir_attrs, by op: one row each, read by one rule in apply_attr. */
typedef enum { AK_INTS, AK_INT, AK_BOOL } attr_kind;
typedef struct simple_attr {
    plumb_opcode op;
    const char *name;
    attr_kind kind;
    size_t off;               /* offset of the field in ir_attrs, bytes */
} simple_attr;

#define SA(op, name, kind, field) {PLUMB_OP_##op, name, kind, offsetof(ir_attrs, field)}
static const simple_attr simple_attrs[] = {
    SA(BROADCAST_IN_DIM, "broadcast_dimensions", AK_INTS, dims),
    SA(TRANSPOSE, "permutation", AK_INTS, dims),
    SA(REVERSE, "dimensions", AK_INTS, dims),
    SA(REDUCE, "dimensions", AK_INTS, dims),
    SA(MAP, "dimensions", AK_INTS, dims),
    SA(IOTA, "iota_dimension", AK_INT, dimension),
    SA(CONCATENATE, "dimension", AK_INT, dimension),
    SA(SORT, "dimension", AK_INT, dimension),
    SA(SLICE, "start_indices", AK_INTS, start),
    SA(SLICE, "limit_indices", AK_INTS, limit),
    SA(SLICE, "strides", AK_INTS, strides),
    SA(DYNAMIC_SLICE, "slice_sizes", AK_INTS, sizes),
    SA(GATHER, "slice_sizes", AK_INTS, sizes),
    SA(PAD, "edge_padding_low", AK_INTS, low),
    SA(PAD, "edge_padding_high", AK_INTS, high),
    SA(PAD, "interior_padding", AK_INTS, interior),
    SA(GATHER, "indices_are_sorted", AK_BOOL, indices_are_sorted),
    SA(SCATTER, "indices_are_sorted", AK_BOOL, indices_are_sorted),
    SA(SCATTER, "unique_indices", AK_BOOL, unique_indices),
    SA(SORT, "is_stable", AK_BOOL, is_stable),
    SA(TOP_K, "k", AK_INT, k),
    SA(GET_DIMENSION_SIZE, "dimension", AK_INT, dimension),
    SA(GET_TUPLE_ELEMENT, "index", AK_INT, tuple_index),
    SA(DYNAMIC_BROADCAST_IN_DIM, "broadcast_dimensions", AK_INTS, dims),
    SA(DYNAMIC_BROADCAST_IN_DIM, "known_expanding_dimensions", AK_INTS, known_expanding),
    SA(DYNAMIC_BROADCAST_IN_DIM, "known_nonexpanding_dimensions", AK_INTS, known_nonexpanding),
    SA(DYNAMIC_IOTA, "iota_dimension", AK_INT, dimension),
    SA(DYNAMIC_GATHER, "indices_are_sorted", AK_BOOL, indices_are_sorted),
    SA(EXPECT_CLOSE, "max_ulp_difference", AK_INT, max_ulp),
    SA(EXPECT_CLOSE_CONST, "max_ulp_difference", AK_INT, max_ulp),
    SA(EXPECT_CLOSE, "min_ulp_difference", AK_INT, min_ulp),
    SA(EXPECT_CLOSE_CONST, "min_ulp_difference", AK_INT, min_ulp),
};
#undef SA

_Static_assert(sizeof simple_attrs / sizeof simple_attrs[0] <= 32, "opb.seen has one bit per simple_attrs row");

static const simple_attr *find_simple_attr(plumb_opcode c, const char *name)
{
    for (size_t i = 0; i < sizeof simple_attrs / sizeof simple_attrs[0]; i++)
        if (simple_attrs[i].op == c && strcmp(simple_attrs[i].name, name) == 0)
            return &simple_attrs[i];
    return NULL;
}

static int hex_digit(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* An MLIR string literal "..." into *out, unescaped: \\, \", \n, \t and
 * \XX (two hex digits) as MLIR writes them. A NUL byte (\00) is refused:
 * the text is kept as a C string. */
static bool string_value(P *p, const char **out)
{
    ws(p);
    size_t st = p->pos;
    if (!eat(p, '"'))
        return expected(p, "a string \"...\"");
    size_t body = p->pos, n = 0;
    char *buf = NULL;
    /* two passes: measure, then copy */
    for (int pass = 0; pass < 2; pass++) {
        size_t i = body;
        n = 0;
        for (;;) {
            if (i >= p->len || p->src[i] == '\n')
                return err_at(p, st, PLUMB_ERR_PARSE, "unterminated string");
            char ch = p->src[i];
            if (ch == '"')
                break;
            if (ch == '\\') {
                if (i + 1 >= p->len)
                    return err_at(p, st, PLUMB_ERR_PARSE, "unterminated string");
                char e = p->src[i + 1];
                int h1 = hex_digit((unsigned char)e), h2 = i + 2 < p->len ? hex_digit((unsigned char)p->src[i + 2]) : -1;
                if (e == '\\' || e == '"') {
                    ch = e;
                    i += 2;
                } else if (e == 'n') {
                    ch = '\n';
                    i += 2;
                } else if (e == 't') {
                    ch = '\t';
                    i += 2;
                } else if (h1 >= 0 && h2 >= 0) {
                    ch = (char)(h1 * 16 + h2);
                    if (ch == '\0')
                        return err_at(p, i, PLUMB_ERR_PARSE, "a string may not hold a NUL byte (\\00)");
                    i += 3;
                } else {
                    return err_at(p, i, PLUMB_ERR_PARSE, "unknown escape '\\%c' in a string (expected \\\\, \\\", \\n, \\t or two hex digits)", e);
                }
            } else {
                i++;
            }
            if (buf)
                buf[n] = ch;
            n++;
        }
        if (pass == 0) {
            buf = plumb_arena_alloc(p->m->arena, n + 1);
            if (!buf)
                return nomem(p);
        } else {
            buf[n] = '\0';
            p->pos = i + 1;
        }
    }
    *out = buf;
    return true;
}

/* reduce_window / select_and_scatter padding: `dense<[[lo, hi], ...]> :
 * tensor<Nx2xi64>` (or a splat `dense<v> : tensor<Nx2xi64>`), kept
 * flattened (lo0, hi0, lo1, ...). */
static bool window_padding(P *p, ir_ints *out)
{
    if (!expect_kw(p, "dense") || !expect(p, '<'))
        return false;
    int64_t *v = NULL;
    uint32_t n = 0, cap = 0;
    bool splat = false;
    if (peek(p) == '[') {
        p->pos++;
        if (!eat(p, ']')) {
            do {
                ir_ints pair;
                ws(p);
                size_t off = p->pos;
                if (!parse_int_list(p, &pair))
                    return false;
                if (pair.n != 2)
                    return err_at(p, off, PLUMB_ERR_PARSE, "padding row has %u entries, expected [low, high]", pair.n);
                if (!grow_arr(p, (void **)&v, n, &cap, sizeof *v) || !grow_arr(p, (void **)&v, n + 1, &cap, sizeof *v))
                    return false;
                v[n++] = pair.v[0];
                v[n++] = pair.v[1];
            } while (eat(p, ','));
            if (!expect(p, ']'))
                return false;
        }
    } else {
        int64_t x;
        if (!parse_i64(p, &x))
            return false;
        if (!grow_arr(p, (void **)&v, n, &cap, sizeof *v))
            return false;
        v[n++] = x;
        splat = true;
    }
    if (!expect(p, '>') || !expect(p, ':'))
        return false;
    ir_type t;
    ws(p);
    size_t toff = p->pos;
    if (!parse_type(p, &t))
        return false;
    if (t.rank != 2 || t.dims[1] != 2 || t.dims[0] < 0 || t.dims[0] > PLUMB_MAX_RANK || !plumb_dtype_is_int(t.dtype))
        return err_at(p, toff, PLUMB_ERR_PARSE, "padding must be a tensor<Nx2xi64> with N at most %d", PLUMB_MAX_RANK);
    if (splat) {
        int64_t x = v[0], all[2 * PLUMB_MAX_RANK];
        for (int64_t i = 0; i < 2 * t.dims[0]; i++)
            all[i] = x;
        *out = ir_ints_make(p->m, all, (uint32_t)(2 * t.dims[0]));
    } else {
        if ((int64_t)n != 2 * t.dims[0])
            return err_at(p, toff, PLUMB_ERR_PARSE, "padding has %u rows but its type says %lld", n / 2,
                          (long long)t.dims[0]);
        *out = ir_ints_make(p->m, v, n);
    }
    return out->n || !(splat ? t.dims[0] : n) || nomem(p);
}

static bool conv_apply_attr(P *p, opb *ob, const char *name, bool *known);

/* Interprets one attribute `name = value` (value spans v) of op code, or
 * keeps it verbatim. has_value is false for unit attributes. */
/* `array<i32: a, b>`: the two segment sizes of chlo.scan's generic form
 * (inputs and inits, or outputs and carries), each >= 0. */
static bool segment_sizes(P *p, int64_t v[2])
{
    if (!expect_kw(p, "array") || !expect(p, '<') || !expect_kw(p, "i32") || !expect(p, ':'))
        return false;
    for (int i = 0; i < 2; i++) {
        ws(p);
        size_t off = p->pos;
        if ((i && !expect(p, ',')) || !parse_i64(p, &v[i]))
            return false;
        if (v[i] < 0 || v[i] > 65536)
            return err_at(p, off, PLUMB_ERR_PARSE, "segment size %lld is out of range", (long long)v[i]);
    }
    return expect(p, '>');
}

/* MLIR's integer types: iN, siN, uiN (N >= 1 decimal digits). */
static bool is_int_type_name(const char *s, size_t n)
{
    size_t i = s[0] == 'i' ? 1 : (n > 2 && (s[0] == 's' || s[0] == 'u') && s[1] == 'i') ? 2 : n;
    if (i >= n)
        return false;
    for (; i < n; i++)
        if (!is_digit((unsigned char)s[i]))
            return false;
    return true;
}

/* The `mhlo.attributes = {...}` of a custom_call @mhlo.NAME, read as
 * tokens so that nothing is skipped unread: `{}`, or for mhlo.topk
 * `{k = N[ : iN], largest = true}` with each key at most once, k an MLIR
 * integer (decimal or 0x hex) >= 0 and largest exactly true or false
 * (false has no chlo.top_k form and is refused). Any other key is
 * unsupported: plumb would not know what it changes. */
static bool mhlo_attr_dict(P *p, opb *ob)
{
    bool seen_largest = false;
    if (ob->mhlo_dict)
        return err_at(p, p->pos, PLUMB_ERR_PARSE, "mhlo.attributes is written twice");
    ob->mhlo_dict = true;
    if (!expect(p, '{') || !enter(p))
        return false;
    if (eat(p, '}')) {
        leave(p);
        return true;
    }
    do {
        ws(p);
        size_t off = p->pos;
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "an attribute name");
        bool is_k = ob->code == PLUMB_OP_TOP_K && n == 1 && s[0] == 'k';
        bool is_largest = ob->code == PLUMB_OP_TOP_K && n == 7 && memcmp(s, "largest", 7) == 0;
        if (!is_k && !is_largest)
            return err_at(p, off, PLUMB_ERR_UNSUPPORTED, "unsupported: mhlo.attributes '%.*s' (of a custom_call read as '%s')",
                          (int)(n > 40 ? 40 : n), s, plumb_op_name(ob->code));
        if (is_k ? ob->mhlo_k : seen_largest)
            return err_at(p, off, PLUMB_ERR_PARSE, "mhlo.attributes has '%.*s' twice", (int)n, s);
        if (!expect(p, '='))
            return false;
        ws(p);
        size_t voff = p->pos;
        if (is_k) {
            int64_t v;
            if (!parse_i64(p, &v))
                return false;
            if ((p->pos < p->len && (is_id_char((unsigned char)p->src[p->pos]) || p->src[p->pos] == '.')) || v < 0)
                return err_at(p, voff, PLUMB_ERR_PARSE, "mhlo.attributes k is not a count (an integer >= 0)");
            if (eat(p, ':')) {
                ws(p);
                size_t toff = p->pos;
                if (!ident(p, &s, &n))
                    return expected(p, "an integer type");
                if (!is_int_type_name(s, n))
                    return err_at(p, toff, PLUMB_ERR_PARSE, "mhlo.attributes k must be an integer, found type '%.*s'",
                                  (int)(n > 40 ? 40 : n), s);
            }
            ob->a.k = v;
            ob->mhlo_k = true;
        } else {
            bool b;
            if (!attr_bool(p, &b))
                return false;
            if (!b)
                return err_at(p, voff, PLUMB_ERR_UNSUPPORTED,
                              "unsupported: '@mhlo.topk' with largest = false (chlo.top_k takes the largest)");
            seen_largest = true;
        }
    } while (eat(p, ','));
    if (!expect(p, '}'))
        return false;
    leave(p);
    return true;
}

static bool apply_attr(P *p, opb *ob, const char *name, span v, bool has_value)
{
    ir_attrs *a = &ob->a;
    plumb_opcode c = ob->code;
    size_t save = p->pos;
    p->pos = v.start;
    bool known = true, ok = true;
    const simple_attr *sa;
#define IS(s) (strcmp(name, s) == 0)
    if (plumb_op_get(c)->kind == PLUMB_KIND_CHECK && IS("has_side_effect")) {
        /* always true for checks; the printer writes it back */
        if (has_value) {
            bool b;
            ok = attr_bool(p, &b);
        }
    } else if ((sa = find_simple_attr(c, name)) != NULL) {
        void *dst = (char *)a + sa->off;
        ob->seen |= 1u << (sa - simple_attrs);
        if (!has_value) {
            /* a unit attribute: only the boolean ones mean "true" */
            if (sa->kind == AK_BOOL)
                *(bool *)dst = true;
            else
                known = false;
        } else if (sa->kind == AK_INTS) {
            ok = attr_ints(p, (ir_ints *)dst);
        } else if (sa->kind == AK_INT) {
            ok = attr_int(p, (int64_t *)dst);
        } else {
            ok = attr_bool(p, (bool *)dst);
        }
    } else if (!has_value) {
        known = false;
    } else if (c == PLUMB_OP_CONVOLUTION || c == PLUMB_OP_DYNAMIC_CONV) {
        ok = conv_apply_attr(p, ob, name, &known);
    } else if (c == PLUMB_OP_COMPARE && IS("comparison_direction")) {
        int e;
        ok = attr_enum(p, "#stablehlo", "comparison_direction", cmp_dirs, "a comparison direction", &e);
        a->cmp_dir = (ir_cmp_dir)e;
    } else if (c == PLUMB_OP_COMPARE && IS("compare_type")) {
        int e;
        ok = attr_enum(p, "#stablehlo", "comparison_type", cmp_types, "a comparison type", &e);
        a->cmp_type = (ir_cmp_type)e;
    } else if (c == PLUMB_OP_DOT_GENERAL && IS("dot_dimension_numbers")) {
        field f[] = {{"lhs_batching_dimensions", &a->lhs_batch, NULL}, {"rhs_batching_dimensions", &a->rhs_batch, NULL},
                     {"lhs_contracting_dimensions", &a->lhs_contract, NULL}, {"rhs_contracting_dimensions", &a->rhs_contract, NULL},
                     {NULL, NULL, NULL}};
        ok = struct_attr(p, "#stablehlo.dot", f);
    } else if (c == PLUMB_OP_RAGGED_DOT && IS("ragged_dot_dimension_numbers")) {
        field f[] = {{"lhs_batching_dimensions", &a->lhs_batch, NULL}, {"rhs_batching_dimensions", &a->rhs_batch, NULL},
                     {"lhs_contracting_dimensions", &a->lhs_contract, NULL}, {"rhs_contracting_dimensions", &a->rhs_contract, NULL},
                     {"lhs_ragged_dimensions", &a->lhs_ragged, NULL}, {"rhs_group_dimensions", &a->rhs_group, NULL},
                     {NULL, NULL, NULL}};
        ok = struct_attr(p, "#chlo.ragged_dot", f);
    } else if ((c == PLUMB_OP_DOT_GENERAL || c == PLUMB_OP_DOT || c == PLUMB_OP_RAGGED_DOT) && IS("precision_config")) {
        ok = precision_list(p, c == PLUMB_OP_RAGGED_DOT ? "#chlo" : "#stablehlo", a);
    } else if (c == PLUMB_OP_DOT_GENERAL && IS("algorithm")) {
        ok = expect_kw(p, "#stablehlo.dot_algorithm") && dot_algorithm_body(p, &a->algorithm);
    } else if ((c == PLUMB_OP_GATHER || c == PLUMB_OP_DYNAMIC_GATHER) && IS("dimension_numbers")) {
        field f[] = {{"offset_dims", &a->offset_dims, NULL}, {"collapsed_slice_dims", &a->collapsed_slice_dims, NULL},
                     {"operand_batching_dims", &a->operand_batching_dims, NULL},
                     {"start_indices_batching_dims", &a->start_indices_batching_dims, NULL},
                     {"start_index_map", &a->start_index_map, NULL}, {"index_vector_dim", NULL, &a->index_vector_dim},
                     {NULL, NULL, NULL}};
        a->index_vector_dim = 0;   /* StableHLO's default when the field is absent */
        ok = struct_attr(p, "#stablehlo.gather", f);
    } else if (c == PLUMB_OP_SCATTER && IS("scatter_dimension_numbers")) {
        field f[] = {{"update_window_dims", &a->update_window_dims, NULL}, {"inserted_window_dims", &a->inserted_window_dims, NULL},
                     {"input_batching_dims", &a->input_batching_dims, NULL},
                     {"scatter_indices_batching_dims", &a->scatter_indices_batching_dims, NULL},
                     {"scatter_dims_to_operand_dims", &a->scatter_dims_to_operand_dims, NULL},
                     {"index_vector_dim", NULL, &a->index_vector_dim}, {NULL, NULL, NULL}};
        a->index_vector_dim = 0;
        ok = struct_attr(p, "#stablehlo.scatter", f);
    } else if ((c == PLUMB_OP_REDUCE_WINDOW || c == PLUMB_OP_SELECT_AND_SCATTER) &&
               (IS("window_dimensions") || IS("window_strides") || IS("padding") ||
                (c == PLUMB_OP_REDUCE_WINDOW && (IS("base_dilations") || IS("window_dilations"))))) {
        if (IS("padding"))
            ok = window_padding(p, &a->padding);
        else
            ok = attr_ints(p, IS("window_dimensions") ? &a->window_dims : IS("window_strides") ? &a->window_strides
                              : IS("base_dilations") ? &a->base_dilations : &a->window_dilations);
    } else if (c == PLUMB_OP_RNG_BIT_GENERATOR && IS("rng_algorithm")) {
        int e;
        ok = attr_enum(p, "#stablehlo", "rng_algorithm", rng_algs, "an rng algorithm (DEFAULT, THREE_FRY or PHILOX)", &e);
        a->rng_alg = (ir_rng_alg)e;
    } else if (c == PLUMB_OP_TRIANGULAR_SOLVE && (IS("left_side") || IS("lower") || IS("unit_diagonal"))) {
        ok = attr_bool(p, IS("left_side") ? &a->left_side : IS("lower") ? &a->lower : &a->unit_diagonal);
    } else if (c == PLUMB_OP_TRIANGULAR_SOLVE && IS("transpose_a")) {
        int e;
        ok = attr_enum(p, "#stablehlo", "transpose", transposes, "a transpose mode (NO_TRANSPOSE, TRANSPOSE or ADJOINT)", &e);
        a->transpose_a = (ir_transpose)e;
    } else if (c == PLUMB_OP_CHOLESKY && IS("lower")) {
        ok = attr_bool(p, &a->lower);
    } else if ((c == PLUMB_OP_BATCH_NORM_INFERENCE || c == PLUMB_OP_BATCH_NORM_TRAINING ||
                c == PLUMB_OP_BATCH_NORM_GRAD) && IS("feature_index")) {
        ok = attr_int(p, &a->feature_index);
    } else if ((c == PLUMB_OP_BATCH_NORM_INFERENCE || c == PLUMB_OP_BATCH_NORM_TRAINING ||
                c == PLUMB_OP_BATCH_NORM_GRAD) && IS("epsilon")) {
        ok = attr_f32(p, &a->epsilon);
    } else if (c == PLUMB_OP_FFT && IS("fft_type")) {
        int e;
        ok = attr_enum(p, "#stablehlo", "fft_type", fft_types, "an fft type (FFT, IFFT, RFFT or IRFFT)", &e);
        a->fft_type = (ir_fft_type)e;
    } else if (c == PLUMB_OP_FFT && IS("fft_length")) {
        ok = attr_ints(p, &a->fft_length);
    } else if (c == PLUMB_OP_REDUCE_PRECISION && (IS("exponent_bits") || IS("mantissa_bits"))) {
        int64_t b;
        size_t off = p->pos;
        ok = attr_int(p, &b);
        if (ok && (b < 0 || b > 64))
            ok = err_at(p, off, PLUMB_ERR_PARSE, "%s %lld is out of range", name, (long long)b);
        if (IS("exponent_bits"))
            a->exponent_bits = (int32_t)b;
        else
            a->mantissa_bits = (int32_t)b;
    } else if ((c == PLUMB_OP_CALL && IS("callee")) || (c == PLUMB_OP_COMPOSITE && IS("decomposition"))) {
        ws(p);
        size_t st = p->pos;
        if (!eat(p, '@'))
            ok = expected(p, "'@name'");
        else {
            const char *s;
            size_t n;
            if (!ident(p, &s, &n))
                ok = expected(p, "a function name");
            else if (!(a->callee = plumb_arena_strndup(p->m->arena, s, n)))
                ok = nomem(p);
        }
        (void)st;
    } else if (c == PLUMB_OP_SCAN && IS("dimension")) {
        ok = attr_int(p, &a->dimension);
    } else if (c == PLUMB_OP_SCAN && IS("is_reverse")) {
        ok = attr_bool(p, &a->is_reverse);
    } else if (c == PLUMB_OP_SCAN && IS("is_associative")) {
        ok = attr_bool(p, &a->is_associative);
        a->has_is_associative = true;
    } else if (c == PLUMB_OP_SCAN && (IS("operandSegmentSizes") || IS("resultSegmentSizes"))) {
        bool ops = IS("operandSegmentSizes");
        ok = segment_sizes(p, ops ? ob->seg_ops : ob->seg_res);
        *(ops ? &ob->has_seg_ops : &ob->has_seg_res) = true;
    } else if (ob->mhlo && IS("mhlo.attributes")) {
        ok = mhlo_attr_dict(p, ob);
    } else if (c == PLUMB_OP_SHAPE_ASSERTION && IS("error_message")) {
        ok = string_value(p, &a->message);
    } else if ((c == PLUMB_OP_EXPECT_ALMOST_EQ || c == PLUMB_OP_EXPECT_ALMOST_EQ_CONST) && IS("tolerance")) {
        ok = attr_float(p, &a->tolerance, true);
    } else if (c == PLUMB_OP_CONSTANT || c == PLUMB_OP_EXPECT_EQ_CONST || c == PLUMB_OP_EXPECT_CLOSE_CONST ||
               c == PLUMB_OP_EXPECT_ALMOST_EQ_CONST) {
        if (IS("value")) {
            ok = dense_value(p, a);
        } else {
            known = false;
        }
    } else {
        known = false;
    }
#undef IS
    if (ok && known && has_value)
        ok = span_done(p, v, name);
    p->pos = save;
    if (!ok)
        return false;
    if (!known) {
        const char *text = has_value ? plumb_arena_strndup(p->m->arena, p->src + v.start, v.end - v.start) : "";
        if (!text || !ir_add_extra_attr(p->m, a, name, text))
            return nomem(p);
    }
    return true;
}

/* `dense<BODY> : tensor<...>`: decoded by the literal module into a tensor
 * whose struct and payload live in the module's arena. */
static void type_str(const ir_type *t, char *out, size_t cap);

static bool dense_resource_literal(P *p, plumb_tensor **out, ir_type *ty);
static bool literal_tensor(P *p, const ir_type *ty, size_t toff, plumb_tensor **out);

static bool dense_literal(P *p, plumb_tensor **out, ir_type *ty)
{
    ws(p);
    size_t st = p->pos;
    if (!eat_kw(p, "dense")) {
        if (peek_kw(p, "dense_resource"))
            return dense_resource_literal(p, out, ty);
        if (peek_kw(p, "sparse"))
            return err_at(p, st, PLUMB_ERR_UNSUPPORTED,
                          "unsupported: plumb reads dense<...> and dense_resource<...> literals only");
        return expected(p, "'dense<...>'");
    }
    if (p->pos >= p->len || p->src[p->pos] != '<')
        return expected(p, "'<' after 'dense'");
    p->pos++;
    size_t body = p->pos;
    if (!enter(p))
        return false;
    for (;;) {
        if (!skip_balanced(p, ">"))
            return false;
        if (p->pos < p->len && p->src[p->pos] == ',') {
            p->pos++;
            continue;
        }
        break;
    }
    if (p->pos >= p->len)
        return err_at(p, st, PLUMB_ERR_PARSE, "unterminated dense<...> literal");
    size_t body_end = p->pos;
    p->pos++;
    leave(p);
    if (!expect(p, ':'))
        return false;
    ws(p);
    size_t toff = p->pos;
    if (!parse_type(p, ty))
        return false;
    plumb_tensor *t;
    if (!literal_tensor(p, ty, toff, &t))
        return false;
    if (!plumb_dense_decode(p->src + body, body_end - body, loc_at(p, body), t, p->d)) {
        if (p->d && p->d->code == PLUMB_OK)
            plumb_diag_set(p->d, PLUMB_ERR_PARSE, loc_at(p, body), "invalid dense literal");
        p->failed = true;
        return false;
    }
    *out = t;
    return true;
}

/* The byte size of a literal of type ty, checked (overflow-safe, against
 * the caller's limit) before any payload is allocated: a short text can
 * name a huge tensor. */
static bool literal_size(P *p, const ir_type *ty, size_t toff, uint64_t *nbytes)
{
    if (!ir_type_is_static(ty))
        return err_at(p, toff, PLUMB_ERR_PARSE, "a literal's type must have static dimensions");
    uint64_t numel;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!plumb_shape_size(ty->dtype, ty->rank, ty->dims, p->max_bytes, &numel, nbytes, &sd)) {
        char ts[256];
        type_str(ty, ts, sizeof ts);
        return err_at(p, toff, sd.code ? sd.code : PLUMB_ERR_LIMIT, "dense literal of type %s: %s", ts, sd.msg);
    }
    return true;
}

/* The tensor a literal of type ty decodes into, its payload in the module's
 * arena once literal_size has accepted its size. */
static bool literal_tensor(P *p, const ir_type *ty, size_t toff, plumb_tensor **out)
{
    uint64_t nbytes;
    if (!literal_size(p, ty, toff, &nbytes))
        return false;
    plumb_tensor *t = plumb_arena_alloc(p->m->arena, sizeof *t);
    if (!t)
        return nomem(p);
    t->dtype = ty->dtype;
    t->rank = ty->rank;
    for (uint32_t i = 0; i < ty->rank; i++)
        t->dims[i] = ty->dims[i];
    t->nbytes = (size_t)nbytes;
    t->owned = false;
    t->data = NULL;
    if (nbytes) {
        t->data = plumb_arena_alloc(p->m->arena, (size_t)nbytes);
        if (!t->data)
            return nomem(p);
    }
    *out = t;
    return true;
}

/* ---- dense_resource ---------------------------------------------------------
 * MLIR keeps large constants out of line (torch-mlir's and JAX's exports,
 * mlir-tensorrt's materialization pass): `dense_resource<KEY> : T` names a
 * blob of the file metadata block MLIR prints after the module,
 *   {-# dialect_resources: { builtin: { KEY: "0xAAAAAAAA<data>" } } #-}
 * whose first four bytes are the blob's alignment (little-endian) and whose
 * data are the elements in the layout of a raw dense<"0x..."> literal: one
 * byte per i1 and sub-byte element, complex real part first
 * (docs/format.md, "dense_resource"). */

static bool at_meta_block(P *p)
{
    return peek(p) == '{' && p->pos + 2 < p->len && p->src[p->pos + 1] == '-' && p->src[p->pos + 2] == '#';
}

/* The offset of the closing quote of the string that starts at i (its
 * escapes skipped), p->len when the line or the text ends first. */
static size_t string_end(const P *p, size_t i)
{
    for (size_t j = i + 1; j < p->len && p->src[j] != '\n'; j++) {
        if (p->src[j] == '"')
            return j;
        if (p->src[j] == '\\' && j + 1 < p->len && p->src[j + 1] != '\n')
            j++;
    }
    return p->len;
}

/* The offset of the last character of the string or "//" comment that
 * starts at i (an unterminated string: up to its line's end), i itself
 * when none does: text the scans for "{-#" and "#-}" must not look into. */
static size_t lex_skip(const P *p, size_t i)
{
    size_t j = i;
    if (p->src[i] == '"') {
        size_t e = string_end(p, i);
        if (e < p->len)
            return e;
    } else if (!(p->src[i] == '/' && i + 1 < p->len && p->src[i + 1] == '/')) {
        return i;
    }
    while (j + 1 < p->len && p->src[j + 1] != '\n')
        j++;
    return j;
}

/* Steps over the metadata block at p->pos; its content is read only when a
 * dense_resource names one of its blobs. */
static bool skip_meta_block(P *p)
{
    size_t st = p->pos;
    for (size_t i = st + 3; i + 3 <= p->len; i = lex_skip(p, i) + 1)
        if (memcmp(p->src + i, "#-}", 3) == 0) {
            p->pos = i + 3;
            return true;
        }
    return err_at(p, st, PLUMB_ERR_PARSE, "unterminated '{-#' metadata block (no closing '#-}')");
}

/* Offset of the metadata block: the first "{-#" outside a string and a
 * "//" comment (which may hold the three characters), wherever it stands
 * (parse_funcs and trailing_defs accept it after a '}' on the same line
 * too); p->len when there is none. */
static size_t meta_block_start(const P *p)
{
    for (size_t i = 0; i + 3 <= p->len; i = lex_skip(p, i) + 1)
        if (p->src[i] == '{' && p->src[i + 1] == '-' && p->src[i + 2] == '#')
            return i;
    return p->len;
}

/* A resource key or a section name: a bare identifier (MLIR's keys also hold
 * '.', '$' and '-') or a quoted string without escapes. */
static bool res_key(P *p, const char **s, size_t *n)
{
    ws(p);
    size_t st = p->pos;
    if (st < p->len && p->src[st] == '"') {
        size_t i = st + 1;
        while (i < p->len && p->src[i] != '"' && p->src[i] != '\n' && p->src[i] != '\\')
            i++;
        if (i >= p->len || p->src[i] != '"')
            return err_at(p, st, PLUMB_ERR_PARSE, "unterminated or escaped resource name");
        *s = p->src + st + 1;
        *n = i - st - 1;
        p->pos = i + 1;
        return true;
    }
    if (st >= p->len || !is_id_start((unsigned char)p->src[st]))
        return expected(p, "a resource name");
    while (p->pos < p->len && (is_id_char((unsigned char)p->src[p->pos]) || p->src[p->pos] == '-'))
        p->pos++;
    *s = p->src + st;
    *n = p->pos - st;
    return true;
}

/* Reads the metadata block once and keeps the builtin dialect's blobs:
 * their keys and the offsets of their hex digits after "0x". Errors name the
 * position in the block. */
static bool read_blobs(P *p)
{
    size_t save = p->pos;
    p->blobs_read = true;
    size_t b = meta_block_start(p);
    if (b >= p->len)
        return true;
    p->pos = b + 3;
    for (;;) {
        ws(p);
        if (p->pos + 3 <= p->len && memcmp(p->src + p->pos, "#-}", 3) == 0)
            break;
        const char *sec;
        size_t sn;
        if (!res_key(p, &sec, &sn) || !expect(p, ':'))
            return false;
        if (!(sn == 17 && memcmp(sec, "dialect_resources", 17) == 0)) {
            const char *ignored;   /* external_resources and any other section */
            if (!raw_group(p, &ignored))
                return false;
        } else {
            if (!expect(p, '{'))
                return false;
            if (!eat(p, '}')) {
                do {
                    const char *dn;
                    size_t dl;
                    if (!res_key(p, &dn, &dl) || !expect(p, ':') || !expect(p, '{'))
                        return false;
                    bool builtin = dl == 7 && memcmp(dn, "builtin", 7) == 0;
                    if (!eat(p, '}')) {
                        do {
                            const char *k;
                            size_t kl;
                            if (!res_key(p, &k, &kl) || !expect(p, ':'))
                                return false;
                            ws(p);
                            size_t vst = p->pos;
                            if (vst < p->len && p->src[vst] == '"') {
                                size_t i = string_end(p, vst);   /* escapes too: other dialects' strings */
                                if (i >= p->len)
                                    return err_at(p, vst, PLUMB_ERR_PARSE, "unterminated resource string");
                                p->pos = i + 1;
                                if (!builtin)
                                    continue;
                                if (i - vst < 3 || p->src[vst + 1] != '0' ||
                                    (p->src[vst + 2] != 'x' && p->src[vst + 2] != 'X'))
                                    return err_at(p, vst, PLUMB_ERR_PARSE,
                                                  "resource '%.*s' is not a hex blob (\"0x...\")", (int)kl, k);
                                if (p->n_blobs == p->cap_blobs) {
                                    uint32_t nc = p->cap_blobs ? p->cap_blobs * 2 : 8;
                                    res_blob *nb = plumb_realloc(p->blobs, (size_t)p->cap_blobs * sizeof *nb,
                                                                 (size_t)nc * sizeof *nb);
                                    if (!nb)
                                        return nomem(p);
                                    p->blobs = nb;
                                    p->cap_blobs = nc;
                                }
                                res_blob *r = &p->blobs[p->n_blobs++];
                                r->key = k;
                                r->key_len = kl;
                                r->hex = vst + 3;
                                r->nhex = i - vst - 3;
                            } else {
                                const char *v;
                                size_t vl;
                                if (!ident(p, &v, &vl))   /* true/false: a bool resource */
                                    return expected(p, "a resource value");
                            }
                        } while (eat(p, ','));
                        if (!expect(p, '}'))
                            return false;
                    }
                } while (eat(p, ','));
                if (!expect(p, '}'))
                    return false;
            }
        }
        if (!eat(p, ','))
            break;
    }
    ws(p);
    if (!(p->pos + 3 <= p->len && memcmp(p->src + p->pos, "#-}", 3) == 0))
        return expected(p, "'#-}'");
    p->pos = save;
    return true;
}

/* Finds KEY among the builtin blobs: *hex is the offset of the blob's first
 * hex digit after "0x", *nhex the number of digits. A missing block or key
 * is reported at the dense_resource's key (use_off). */
static bool resource_blob(P *p, size_t use_off, const char *key, size_t kn, size_t *hex, size_t *nhex)
{
    if (!p->blobs_read) {
        if (meta_block_start(p) >= p->len)
            return err_at(p, use_off, PLUMB_ERR_PARSE,
                          "dense_resource<%.*s>: the file has no '{-# dialect_resources: ... #-}' block with its data",
                          (int)kn, key);
        if (!read_blobs(p))
            return false;
    }
    for (uint32_t i = 0; i < p->n_blobs; i++)
        if (p->blobs[i].key_len == kn && memcmp(p->blobs[i].key, key, kn) == 0) {
            *hex = p->blobs[i].hex;
            *nhex = p->blobs[i].nhex;
            return true;
        }
    if (meta_block_start(p) >= p->len)
        return err_at(p, use_off, PLUMB_ERR_PARSE,
                      "dense_resource<%.*s>: the file has no '{-# dialect_resources: ... #-}' block with its data",
                      (int)kn, key);
    return err_at(p, use_off, PLUMB_ERR_PARSE,
                  "dense_resource<%.*s>: no blob of that name in the file's 'dialect_resources: builtin' block",
                  (int)kn, key);
}

/* `dense_resource<KEY> : T`, decoded as the raw literal dense<"0x<data>">
 * would be, so both forms check the same things (i1 bytes 0 or 1, sub-byte
 * values in their low bits). A resource is never a splat: its data must hold
 * every element. */
static bool dense_resource_literal(P *p, plumb_tensor **out, ir_type *ty)
{
    if (!eat_kw(p, "dense_resource") || !expect(p, '<'))
        return false;
    ws(p);
    size_t koff = p->pos;
    const char *key;
    size_t kn;
    if (!res_key(p, &key, &kn) || !expect(p, '>') || !expect(p, ':'))
        return false;
    ws(p);
    size_t toff = p->pos;
    if (!parse_type(p, ty))
        return false;
    /* The payload is allocated only once the blob is known to fill it: a
     * few bytes of text can declare a tensor of gigabytes, and unlike a
     * splat a resource's size is known before anything is allocated. */
    uint64_t need;
    if (!literal_size(p, ty, toff, &need))
        return false;
    /* MLIR's printer writes this key when it leaves a constant's data out
     * (--mlir-elide-resource-strings-if-larger); there is nothing to run. */
    if (kn == 10 && memcmp(key, "__elided__", 10) == 0)
        return err_at(p, koff, PLUMB_ERR_UNSUPPORTED,
                      "unsupported: dense_resource<__elided__> holds no data (the printer left the constant out)");
    size_t hex = 0, nhex = 0;
    if (!resource_blob(p, koff, key, kn, &hex, &nhex))
        return false;
    if (nhex % 2 || nhex < 8)
        return err_at(p, hex, PLUMB_ERR_PARSE,
                      "resource '%.*s': a blob is an even number of hex digits, four bytes of alignment first",
                      (int)kn, key);
    for (size_t i = 0; i < nhex; i++)
        if (hex_digit((unsigned char)p->src[hex + i]) < 0)
            return err_at(p, hex + i, PLUMB_ERR_PARSE, "resource '%.*s': '%c' is not a hex digit", (int)kn, key,
                          p->src[hex + i]);
    uint32_t align = 0;
    for (int i = 3; i >= 0; i--)
        align = align << 8 | (uint32_t)(hex_digit((unsigned char)p->src[hex + 2 * i]) * 16 +
                                    hex_digit((unsigned char)p->src[hex + 2 * i + 1]));
    if (align == 0 || (align & (align - 1)))
        return err_at(p, hex, PLUMB_ERR_PARSE,
                      "resource '%.*s': alignment %u (the blob's first four bytes) is not a power of two", (int)kn,
                      key, align);
    size_t nb = (nhex - 8) / 2;
    if (nb != need) {
        char ts[256];
        type_str(ty, ts, sizeof ts);
        return err_at(p, koff, PLUMB_ERR_INVALID,
                      "dense_resource<%.*s> : %s: the blob holds %zu bytes of data, the type needs %llu", (int)kn, key,
                      ts, nb, (unsigned long long)need);
    }
    plumb_tensor *t;
    if (!literal_tensor(p, ty, toff, &t))
        return false;
    if (nb) {
        /* `"0x` + data + `"`: a raw literal for the shared decoder, whose
         * diagnostics then point into the blob (the copy is freed here). */
        size_t blen = nb * 2 + 4;
        char *body = plumb_malloc(blen);
        if (!body)
            return nomem(p);
        memcpy(body, "\"0x", 3);
        memcpy(body + 3, p->src + hex + 8, nb * 2);
        body[blen - 1] = '"';
        bool ok = plumb_dense_decode(body, blen, loc_at(p, hex + 8 - 3), t, p->d);
        plumb_free(body, blen);
        if (!ok) {
            if (p->d && p->d->code == PLUMB_OK)
                plumb_diag_set(p->d, PLUMB_ERR_PARSE, loc_at(p, hex), "invalid dense_resource blob");
            p->failed = true;
            return false;
        }
    }
    *out = t;
    return true;
}

static bool dense_value(P *p, ir_attrs *a)
{
    ir_type ty;
    if (!dense_literal(p, &a->value, &ty))
        return false;
    ir_attrs_note_splat(a);   /* once, here: the compiler then reads one element */
    return true;
}

/* `{name = value, unit_name, ...}`; values are skipped as balanced groups,
 * then interpreted by apply_attr. */
static bool attr_dict(P *p, opb *ob)
{
    if (!expect(p, '{') || !enter(p))
        return false;
    if (!eat(p, '}')) {
        do {
            ws(p);
            const char *s;
            size_t n;
            if (peek(p) == '"') {
                size_t st = ++p->pos;
                while (p->pos < p->len && p->src[p->pos] != '"' && p->src[p->pos] != '\n')
                    p->pos++;
                if (p->pos >= p->len || p->src[p->pos] != '"')
                    return err_at(p, st - 1, PLUMB_ERR_PARSE, "unterminated string");
                s = p->src + st;
                n = p->pos - st;
                p->pos++;
            } else if (!ident(p, &s, &n)) {
                return expected(p, "an attribute name");
            }
            char *name = plumb_arena_strndup(p->m->arena, s, n);
            if (!name)
                return nomem(p);
            span v = {0, 0};
            bool has_value = eat(p, '=');
            if (has_value) {
                ws(p);
                v.start = p->pos;
                if (!skip_balanced(p, "}"))
                    return false;
                v.end = p->pos;
                while (v.end > v.start && strchr(" \t\r\n", p->src[v.end - 1]))
                    v.end--;
                if (v.end == v.start)
                    return expected(p, "an attribute value");
            }
            if (!apply_attr(p, ob, name, v, has_value))
                return false;
        } while (eat(p, ','));
        if (!expect(p, '}'))
            return false;
    }
    leave(p);
    return true;
}

static bool opt_attr_dict(P *p, opb *ob)
{
    return peek(p) == '{' ? attr_dict(p, ob) : true;
}

/* ---- blocks and regions ---------------------------------------------------- */

/* ---- debug locations (docs/format.md "Debug locations") -------------------- */

/* Alias chains and nested callsites are resolved recursively; deeper than
 * this is refused instead of risking the stack (JAX's call stacks are a
 * few dozen frames, two levels each). */
#define LOC_MAX_DEPTH 1000

static lnode *lnode_new(P *p, lkind k, size_t off)
{
    lnode *n = plumb_arena_alloc(p->m->arena, sizeof *n);
    if (!n) {
        nomem(p);
        return NULL;
    }
    n->kind = k;
    n->off = off;
    return n;
}

static bool loc_u32(P *p, uint32_t *out)
{
    ws(p);
    size_t st = p->pos;
    if (p->pos >= p->len || !is_digit((unsigned char)p->src[p->pos]))
        return expected(p, "a line or column number");
    uint64_t v = 0;
    while (p->pos < p->len && is_digit((unsigned char)p->src[p->pos])) {
        v = v * 10 + (uint64_t)(p->src[p->pos] - '0');
        if (v > UINT32_MAX)
            return err_at(p, st, PLUMB_ERR_PARSE, "line or column number in a location exceeds %u", UINT32_MAX);
        p->pos++;
    }
    *out = (uint32_t)v;
    return true;
}

static bool loc_expr(P *p, lnode **out);

/* One location: "file":L:C (optionally a range `to [L2]:C2`, of which the
 * start is kept), "name", "name"(LOC), callsite(LOC at LOC),
 * fused[LOC, ...], fused<META>[...], unknown, #alias. */
static bool loc_expr_body(P *p, lnode **out)
{
    int c = peek(p);
    size_t off = p->pos;
    lnode *n = NULL;
    if (c == '#') {
        size_t st = ++p->pos;
        while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
            p->pos++;
        if (p->pos == st)
            return expected(p, "a location alias name after '#'");
        if (!(n = lnode_new(p, LK_ALIAS, off)))
            return false;
        n->str = p->src + st;
        n->len = (uint32_t)(p->pos - st);
    } else if (eat_kw(p, "unknown")) {
        if (!(n = lnode_new(p, LK_UNKNOWN, off)))
            return false;
    } else if (eat_kw(p, "callsite")) {
        if (!(n = lnode_new(p, LK_CALLSITE, off)))
            return false;
        if (!expect(p, '(') || !loc_expr(p, &n->a) || !expect_kw(p, "at") || !loc_expr(p, &n->b) || !expect(p, ')'))
            return false;
    } else if (eat_kw(p, "fused")) {
        if (!(n = lnode_new(p, LK_FUSED, off)))
            return false;
        if (eat(p, '<')) {
            /* the metadata attribute says which pass fused; not kept */
            if (!enter(p) || !skip_balanced(p, ">") || !expect(p, '>'))
                return false;
            leave(p);
        }
        if (!expect(p, '['))
            return false;
        if (!eat(p, ']')) {
            uint32_t cap = 0;
            do {
                if (!grow_arr(p, (void **)&n->kids, n->n_kids, &cap, sizeof *n->kids) ||
                    !loc_expr(p, &n->kids[n->n_kids]))
                    return false;
                n->n_kids++;
            } while (eat(p, ','));
            if (!expect(p, ']'))
                return false;
        }
    } else if (c == '"') {
        const char *str;
        if (!string_value(p, &str))
            return false;
        if (eat(p, ':')) {
            if (!(n = lnode_new(p, LK_FILE, off)))
                return false;
            n->str = str;
            if (!loc_u32(p, &n->line))
                return false;
            if (eat(p, ':') && !loc_u32(p, &n->col))
                return false;
            if (eat_kw(p, "to")) {
                uint32_t end;
                if (peek(p) != ':' && !loc_u32(p, &end))
                    return false;
                if (eat(p, ':') && !loc_u32(p, &end))
                    return false;
            }
        } else {
            if (!(n = lnode_new(p, LK_NAME, off)))
                return false;
            n->str = str;
            if (eat(p, '(') && (!loc_expr(p, &n->a) || !expect(p, ')')))
                return false;
        }
    } else {
        return expected(p, "a location (\"file\":line:col, \"name\", callsite(...), fused[...], unknown or #alias)");
    }
    *out = n;
    return true;
}

static bool loc_expr(P *p, lnode **out)
{
    if (!enter(p) || !loc_expr_body(p, out))
        return false;
    leave(p);
    return true;
}

/* An optional `loc(...)`; *out is NULL when none follows. */
static bool opt_loc(P *p, lnode **out)
{
    *out = NULL;
    if (!peek_kw(p, "loc"))
        return true;
    size_t at = p->pos;
    p->pos += 3;
    if (peek(p) != '(') {
        p->pos = at;
        return true;
    }
    p->pos++;
    return loc_expr(p, out) && expect(p, ')');
}

/* Records that *to is n's resolved location (filled in by resolve_locs). */
static bool want_loc(P *p, ir_debug_loc *to, lnode *n)
{
    if (!n)
        return true;
    if (!grow_arr(p, (void **)&p->loc_uses, p->n_loc_uses, &p->cap_loc_uses, sizeof *p->loc_uses))
        return false;
    p->loc_uses[p->n_loc_uses].to = to;
    p->loc_uses[p->n_loc_uses].node = n;
    p->n_loc_uses++;
    return true;
}

/* A block or function argument's `loc(...)`. */
static bool want_arg_loc(P *p, ir_value *v, lnode *n)
{
    if (!n)
        return true;
    ir_debug_loc *l = plumb_arena_alloc(p->m->arena, sizeof *l);
    if (!l)
        return nomem(p);
    v->dloc = l;
    return want_loc(p, l, n);
}

/* `#name = loc(...)` at the top level, before, between or after functions. */
static bool alias_def(P *p)
{
    ws(p);
    size_t off = p->pos;
    size_t st = ++p->pos;
    while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
        p->pos++;
    if (p->pos == st)
        return expected(p, "an alias name after '#'");
    uint32_t len = (uint32_t)(p->pos - st);
    if (!expect(p, '='))
        return false;
    lnode *n = NULL;
    ws(p);
    size_t voff = p->pos;
    if (!opt_loc(p, &n))
        return false;
    if (!n)
        return err_at(p, voff, PLUMB_ERR_UNSUPPORTED,
                      "unsupported: alias '#%.*s' is not a location; only '#name = loc(...)' aliases are read",
                      (int)(len > 80 ? 80 : len), p->src + st);
    if (!grow_arr(p, (void **)&p->aliases, p->n_aliases, &p->cap_aliases, sizeof *p->aliases))
        return false;
    loc_alias *a = &p->aliases[p->n_aliases++];
    memset(a, 0, sizeof *a);
    a->name = p->src + st;
    a->len = len;
    a->node = n;
    a->off = off;
    return true;
}

static int name_cmp(const char *a, uint32_t al, const char *b, uint32_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static int alias_order(const void *x, const void *y)
{
    const loc_alias *a = x, *b = y;
    int c = name_cmp(a->name, a->len, b->name, b->len);
    if (c)
        return c;
    return a->off < b->off ? -1 : a->off > b->off;
}

static loc_alias *find_alias(P *p, const char *name, uint32_t len)
{
    uint32_t lo = 0, hi = p->n_aliases;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(p->aliases[mid].name, p->aliases[mid].len, name, len);
        if (c == 0)
            return &p->aliases[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool resolve(P *p, const lnode *n, ir_debug_loc *r, uint32_t depth);

static bool resolve_alias(P *p, loc_alias *a, size_t ref_off, uint32_t depth)
{
    if (a->state == 2)
        return true;
    if (a->state == 1)
        return err_at(p, ref_off, PLUMB_ERR_PARSE, "location alias '#%.*s' refers to itself (a cycle of aliases)",
                      (int)(a->len > 80 ? 80 : a->len), a->name);
    a->state = 1;
    if (!resolve(p, a->node, &a->res, depth + 1))
        return false;
    a->state = 2;
    return true;
}

/* What a diagnostic shows of n: the outermost name, the innermost file
 * position (a callsite's callee before its caller, a fused location's
 * first part that has one). Every part is resolved, so a bad alias
 * anywhere is reported. */
static bool resolve(P *p, const lnode *n, ir_debug_loc *r, uint32_t depth)
{
    memset(r, 0, sizeof *r);
    if (depth > LOC_MAX_DEPTH)
        return err_at(p, n->off, PLUMB_ERR_LIMIT, "location nests deeper than %u levels (through aliases)", LOC_MAX_DEPTH);
    switch (n->kind) {
    case LK_UNKNOWN:
        return true;
    case LK_FILE:
        r->file = n->str;
        r->line = n->line;
        r->col = n->col;
        return true;
    case LK_NAME:
        if (n->a && !resolve(p, n->a, r, depth + 1))
            return false;
        r->name = n->str;
        return true;
    case LK_CALLSITE: {
        ir_debug_loc caller;
        if (!resolve(p, n->a, r, depth + 1) || !resolve(p, n->b, &caller, depth + 1))
            return false;
        if (!r->file) {
            r->file = caller.file;
            r->line = caller.line;
            r->col = caller.col;
        }
        if (!r->name)
            r->name = caller.name;
        return true;
    }
    case LK_FUSED:
        for (uint32_t i = 0; i < n->n_kids; i++) {
            ir_debug_loc k;
            if (!resolve(p, n->kids[i], &k, depth + 1))
                return false;
            if (!r->file && k.file) {
                r->file = k.file;
                r->line = k.line;
                r->col = k.col;
            }
            if (!r->name)
                r->name = k.name;
        }
        return true;
    case LK_ALIAS: {
        loc_alias *a = find_alias(p, n->str, n->len);
        if (!a)
            return err_at(p, n->off, PLUMB_ERR_PARSE, "unknown location alias '#%.*s' (no '#%.*s = loc(...)' in the file)",
                          (int)(n->len > 80 ? 80 : n->len), n->str, (int)(n->len > 80 ? 80 : n->len), n->str);
        if (!resolve_alias(p, a, n->off, depth))
            return false;
        *r = a->res;
        return true;
    }
    }
    return err_at(p, n->off, PLUMB_ERR_PARSE, "internal error: unknown location kind %d", (int)n->kind);
}

/* After the whole file: every alias defined once and free of cycles
 * (used or not, as MLIR requires), then every recorded location filled in. */
static bool resolve_locs(P *p)
{
    if (p->n_aliases)
        qsort(p->aliases, p->n_aliases, sizeof *p->aliases, alias_order);
    for (uint32_t i = 1; i < p->n_aliases; i++) {
        loc_alias *a = &p->aliases[i - 1], *b = &p->aliases[i];
        if (name_cmp(a->name, a->len, b->name, b->len) == 0) {
            uint32_t first = loc_at(p, a->off).line;
            return err_at(p, b->off, PLUMB_ERR_PARSE, "location alias '#%.*s' is defined twice (first on line %u)",
                          (int)(b->len > 80 ? 80 : b->len), b->name, first);
        }
    }
    for (uint32_t i = 0; i < p->n_aliases; i++)
        if (!resolve_alias(p, &p->aliases[i], p->aliases[i].off, 0))
            return false;
    for (uint32_t i = 0; i < p->n_loc_uses; i++)
        if (!resolve(p, p->loc_uses[i].node, p->loc_uses[i].to, 0))
            return false;
    return true;
}

/* After a parse error in the statement starting at off: its trailing
 * `loc(...)` (found by skipping balanced brackets and strings to the end of
 * the statement's last line) resolved with every `#name = loc(...)` line of
 * the file, written as " (from ...)" into out, so that a rejected op (one
 * outside op set v1, say) still names the front end's line. Best effort:
 * p->failed is set, so whatever is malformed here reports nothing and
 * yields "". */
static void stmt_origin(P *p, size_t off, char *out, size_t cap)
{
    out[0] = '\0';
    size_t i = off, at = 0;
    int depth = 0;
    while (i < p->len) {
        char c = p->src[i];
        if (c == '"') {
            for (i++; i < p->len && p->src[i] != '"' && p->src[i] != '\n'; i++)
                if (p->src[i] == '\\')
                    i++;
        } else if (c == '/' && i + 1 < p->len && p->src[i + 1] == '/') {
            while (i < p->len && p->src[i] != '\n')
                i++;
            continue;
        } else if (c == '-' && i + 1 < p->len && p->src[i + 1] == '>') {
            i++;
        } else if (c == '(' || c == '[' || c == '{' || c == '<') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}' || c == '>') {
            if (--depth < 0)
                break;   /* the end of the enclosing block */
        } else if (c == '\n' && depth == 0) {
            /* the statement goes on when the next line continues it (a
             * while's `cond {`, a reduce's `reducer(...)`, a lone `loc(`):
             * a bare word that is not an op of its own */
            size_t j = i + 1;
            while (j < p->len && (p->src[j] == ' ' || p->src[j] == '\t' || p->src[j] == '\r'))
                j++;
            size_t w = j;
            while (w < p->len && is_id_char((unsigned char)p->src[w]))
                w++;
            bool word = w > j && is_id_start((unsigned char)p->src[j]) && !memchr(p->src + j, '.', w - j);
            if (!word || (w - j == 6 && memcmp(p->src + j, "return", 6) == 0) ||
                (w - j == 4 && memcmp(p->src + j, "call", 4) == 0))
                break;
        } else if (depth == 0 && c == 'l' && i + 4 <= p->len && memcmp(p->src + i, "loc(", 4) == 0 &&
                   i > 0 && !is_id_char((unsigned char)p->src[i - 1])) {
            at = i;
        }
        i++;
    }
    if (!at)
        return;
    p->depth = 0;
    p->n_aliases = 0;
    for (size_t k = 0; k < p->len; k++)
        if (p->src[k] == '#' && (k == 0 || p->src[k - 1] == '\n')) {
            p->pos = k;
            (void)alias_def(p);
            p->depth = 0;
        }
    if (p->n_aliases)
        qsort(p->aliases, p->n_aliases, sizeof *p->aliases, alias_order);
    lnode *n = NULL;
    ir_debug_loc r;
    p->pos = at;
    if (opt_loc(p, &n) && n && resolve(p, n, &r, 0))
        ir_debug_loc_describe(out, cap, &r);
}

static bool parse_stmt(P *p, ir_block *blk);

/* Statements up to (not including) the closing '}'. */
static bool parse_ops(P *p, ir_block *blk)
{
    for (;;) {
        int c = peek(p);
        if (c == '}')
            return true;
        if (c == 0)
            return err_at(p, p->pos, PLUMB_ERR_PARSE, "expected '}', found end of input (unterminated block)");
        if (!parse_stmt(p, blk))
            return false;
    }
}

/* `%name: type [loc(...)]` bound in the current scope as a new argument
 * of blk; *dl is the location, NULL when none is written. */
static bool block_arg(P *p, ir_block *blk, const char **name, size_t *len, ir_type *t, size_t *off, lnode **dl)
{
    (void)blk;
    ws(p);
    *off = p->pos;
    if (!value_name(p, name, len))
        return false;
    if (!expect(p, ':') || !parse_type(p, t))
        return false;
    return opt_loc(p, dl);
}

static bool bind_arg(P *p, const char *name, size_t len, size_t off, ir_value *v)
{
    if (defined_here(p, name, len))
        return err_at(p, off, PLUMB_ERR_PARSE, "redefinition of value '%%%.*s'", (int)len, name);
    ir_value **slot = plumb_arena_alloc(p->m->arena, sizeof *slot);
    if (!slot)
        return nomem(p);
    *slot = v;
    v->name = plumb_arena_strndup(p->m->arena, name, len);
    return bind(p, name, len, slot, 1);
}

/* `{ [^bb0(%a: T, ...):] ops }` */
static bool parse_region(P *p, ir_block *blk)
{
    if (!expect(p, '{') || !enter(p) || !push_scope(p))
        return false;
    if (peek(p) == '^') {
        p->pos++;
        const char *s;
        size_t n;
        if (!ident(p, &s, &n) && !(p->pos < p->len && is_digit((unsigned char)p->src[p->pos])))
            return expected(p, "a block label");
        while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
            p->pos++;
        if (eat(p, '(') && !eat(p, ')')) {
            do {
                const char *an;
                size_t al, off;
                ir_type t;
                lnode *dl;
                if (!block_arg(p, blk, &an, &al, &t, &off, &dl))
                    return false;
                ir_value *v = ir_block_add_arg(p->m, blk, &t);
                if (!v)
                    return nomem(p);
                if (!bind_arg(p, an, al, off, v) || !want_arg_loc(p, v, dl))
                    return false;
            } while (eat(p, ','));
            if (!expect(p, ')'))
                return false;
        }
        if (!expect(p, ':'))
            return false;
    }
    if (!parse_ops(p, blk) || !expect(p, '}'))
        return false;
    pop_scope(p);
    leave(p);
    return true;
}

/* A region of the pretty while form: `{ ops }` with no block header; its
 * arguments are the loop's iteration values, named in the op's
 * `(%iterArg = %init, ...)` list and typed by its type list. */
static bool parse_region_named(P *p, ir_block *blk, const char *const *names, const size_t *lens,
                               const size_t *offs, const ir_type *types, uint32_t n)
{
    if (!expect(p, '{') || !enter(p) || !push_scope(p))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        ir_value *v = ir_block_add_arg(p->m, blk, &types[i]);
        if (!v)
            return nomem(p);
        if (!bind_arg(p, names[i], lens[i], offs[i], v))
            return false;
    }
    if (!parse_ops(p, blk) || !expect(p, '}'))
        return false;
    pop_scope(p);
    leave(p);
    return true;
}

static ir_block *new_region(P *p, opb *ob)
{
    if (!grow_arr(p, (void **)&ob->regs, ob->n_regs, &ob->cap_regs, sizeof *ob->regs))
        return NULL;
    ir_block *b = &ob->regs[ob->n_regs++];
    memset(b, 0, sizeof *b);
    return b;
}

/* Regions were parsed into temporary blocks (in an array that may have
 * moved since); re-point their ops and arguments at the blocks op owns. */
static void adopt_regions(ir_op *op, const opb *ob)
{
    for (uint32_t i = 0; i < ob->n_regs; i++) {
        ir_block *r = &op->regions[i];
        ir_op *parent = r->parent;
        *r = ob->regs[i];
        r->parent = parent;
        for (ir_op *o = r->first; o; o = o->next)
            o->parent = r;
        for (uint32_t j = 0; j < r->n_args; j++)
            r->args[j]->owner = r;
    }
}

/* ---- finishing an op ------------------------------------------------------- */

static void type_str(const ir_type *t, char *out, size_t cap)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(out, cap, "%s", b.data && !b.failed ? b.data : "?");
    plumb_buf_free(&b);
}

static bool finish_op(P *p, opb *ob, ir_block *blk, def_name *defs, uint32_t n_defs, ir_op **out)
{
    const plumb_op_info *info = plumb_op_get(ob->code);
    if (info->arity != PLUMB_VAR && (int)ob->n_ops != info->arity)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' takes %d operand%s, found %u", info->name, info->arity,
                      info->arity == 1 ? "" : "s", ob->n_ops);
    if (info->results != PLUMB_VAR && (int)ob->n_rt != info->results)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' has %d result%s, but its signature declares %u", info->name,
                      info->results, info->results == 1 ? "" : "s", ob->n_rt);
    if (ob->n_defs != ob->n_rt)
        return err_at(p, n_defs ? defs[0].off : ob->off, PLUMB_ERR_PARSE, "op '%s' has %u result%s but %u value%s defined",
                      info->name, ob->n_rt, ob->n_rt == 1 ? "" : "s", ob->n_defs, ob->n_defs == 1 ? " is" : "s are");
    if (ob->ot) {
        if (ob->n_ot != ob->n_ops)
            return err_at(p, ob->ot_off, PLUMB_ERR_PARSE, "op '%s' has %u operand%s but its signature lists %u type%s", info->name,
                          ob->n_ops, ob->n_ops == 1 ? "" : "s", ob->n_ot, ob->n_ot == 1 ? "" : "s");
        for (uint32_t i = 0; i < ob->n_ops; i++)
            if (!ir_type_equal(&ob->ops[i]->type, &ob->ot[i])) {
                char want[256], got[256];
                type_str(&ob->ot[i], want, sizeof want);
                type_str(&ob->ops[i]->type, got, sizeof got);
                return err_at(p, ob->op_offs[i], PLUMB_ERR_PARSE, "operand %u of '%s' has type %s but the signature says %s", i,
                              info->name, got, want);
            }
    }
    ir_op *op = ir_op_new(p->m, ob->code, ob->ops, ob->n_ops, ob->rt, ob->n_rt);
    if (!op)
        return nomem(p);
    op->a = ob->a;
    op->loc = loc_at(p, ob->off);
    if (ob->n_regs) {
        if (!ir_op_add_regions(p->m, op, ob->n_regs))
            return nomem(p);
        adopt_regions(op, ob);
    }
    ir_block_append(blk, op);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_defs; i++) {
        if (!bind(p, defs[i].name, defs[i].len, op->results + k, defs[i].count))
            return false;
        for (uint32_t j = 0; j < defs[i].count; j++)
            if (!(op->results[k + j]->name = plumb_arena_strndup(p->m->arena, defs[i].name, defs[i].len)))
                return nomem(p);
        k += defs[i].count;
    }
    if (ob->code == PLUMB_OP_CALL) {
        if (p->n_calls == p->cap_calls) {
            uint32_t nc = p->cap_calls ? p->cap_calls * 2 : 16;
            pending_call *c = plumb_realloc(p->calls, (size_t)p->cap_calls * sizeof *c, (size_t)nc * sizeof *c);
            if (!c)
                return nomem(p);
            p->calls = c;
            p->cap_calls = nc;
        }
        p->calls[p->n_calls].op = op;
        p->calls[p->n_calls].off = ob->off;
        p->n_calls++;
    }
    if (out)
        *out = op;
    return true;
}

/* ---- pretty forms ---------------------------------------------------------- */

static bool symbol_ref(P *p, const char **out, size_t *out_len)
{
    ws(p);
    if (!eat(p, '@'))
        return expected(p, "'@name'");
    const char *s;
    size_t n;
    if (p->pos < p->len && p->src[p->pos] == '"') {
        size_t st = ++p->pos;
        while (p->pos < p->len && p->src[p->pos] != '"' && p->src[p->pos] != '\n')
            p->pos++;
        if (p->pos >= p->len || p->src[p->pos] != '"')
            return err_at(p, st - 1, PLUMB_ERR_PARSE, "unterminated string");
        s = p->src + st;
        n = p->pos - st;
        p->pos++;
    } else {
        size_t st = p->pos;
        while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
            p->pos++;
        if (p->pos == st)
            return expected(p, "a symbol name after '@'");
        s = p->src + st;
        n = p->pos - st;
    }
    *out = s;
    *out_len = n;
    return true;
}

/* Operands `%a, %b, ...` followed by keyword arguments; stops before the
 * first entry that is not a value. Returns true with *more set when a ','
 * was consumed and a keyword follows. */
static bool operands_then(P *p, opb *ob, bool *more)
{
    *more = false;
    if (peek(p) != '%')
        return true;
    do {
        if (peek(p) != '%') {
            *more = true;
            return true;
        }
        if (!add_operand(p, ob))
            return false;
    } while (eat(p, ','));
    return true;
}

static bool need_more(P *p, bool more, const char *kw)
{
    if (!more) {
        char what[64];
        snprintf(what, sizeof what, "', %s'", kw);
        return expected(p, what);
    }
    return true;
}

static bool dims_x_dims(P *p, ir_ints *l, ir_ints *r)
{
    return parse_int_list(p, l) && expect_kw(p, "x") && parse_int_list(p, r);
}

/* ---- convolution (docs/spec/conv.md) ------------------------------------------ */

/* The op's ir_conv, allocated zeroed (so that equal attributes compare
 * equal bytewise) with the group counts' defaults on first use. */
static ir_conv *conv_attrs(P *p, opb *ob)
{
    if (!ob->a.conv) {
        ob->a.conv = plumb_arena_alloc(p->m->arena, sizeof *ob->a.conv);
        if (!ob->a.conv) {
            nomem(p);
            return NULL;
        }
        memset(ob->a.conv, 0, sizeof *ob->a.conv);
        ob->a.conv->feature_group_count = 1;
        ob->a.conv->batch_group_count = 1;
    }
    return ob->a.conv;
}

/* One list of `[b, 0, 1, f]`: letters l0/l1 (b/f, i/o) name the two
 * non-spatial dimensions, digits the spatial ones. Positions are the
 * dimension numbers. */
static bool conv_dims_list(P *p, char l0, char l1, int64_t *d0, int64_t *d1, int64_t *sp, uint32_t *n_sp,
                           const char *which)
{
    ws(p);
    size_t st = p->pos;
    if (!expect(p, '['))
        return false;
    int64_t pos_of[IR_CONV_MAX_SPATIAL];
    bool seen0 = false, seen1 = false;
    uint32_t n = 0, n_digits = 0;
    uint64_t seen_sp = 0;
    for (uint32_t i = 0; i < IR_CONV_MAX_SPATIAL; i++)
        pos_of[i] = -1;
    if (!eat(p, ']')) {
        do {
            ws(p);
            size_t off = p->pos;
            if (n >= PLUMB_MAX_RANK)
                return err_at(p, off, PLUMB_ERR_LIMIT, "%s dimension numbers: more than %d dimensions", which, PLUMB_MAX_RANK);
            if (p->pos < p->len && is_digit((unsigned char)p->src[p->pos])) {
                int64_t k;
                if (!parse_i64(p, &k))
                    return false;
                if (k < 0 || k >= IR_CONV_MAX_SPATIAL)
                    return err_at(p, off, PLUMB_ERR_PARSE, "%s dimension numbers: spatial dimension %lld is out of range (at most %d)",
                                  which, (long long)k, IR_CONV_MAX_SPATIAL - 1);
                if (seen_sp & (1ull << k))
                    return err_at(p, off, PLUMB_ERR_PARSE, "%s dimension numbers: spatial dimension %lld is written twice",
                                  which, (long long)k);
                seen_sp |= 1ull << k;
                pos_of[k] = n;
                n_digits++;
            } else {
                const char *s;
                size_t len;
                if (!ident(p, &s, &len) || len != 1 || (s[0] != l0 && s[0] != l1))
                    return err_at(p, off, PLUMB_ERR_PARSE, "%s dimension numbers: expected '%c', '%c' or a spatial dimension number",
                                  which, l0, l1);
                bool *seen = s[0] == l0 ? &seen0 : &seen1;
                if (*seen)
                    return err_at(p, off, PLUMB_ERR_PARSE, "%s dimension numbers: '%c' is written twice", which, s[0]);
                *seen = true;
                *(s[0] == l0 ? d0 : d1) = n;
            }
            n++;
        } while (eat(p, ','));
        if (!expect(p, ']'))
            return false;
    }
    if (!seen0 || !seen1)
        return err_at(p, st, PLUMB_ERR_PARSE, "%s dimension numbers: need both '%c' and '%c'", which, l0, l1);
    for (uint32_t k = 0; k < n_digits; k++)
        if (pos_of[k] < 0)
            return err_at(p, st, PLUMB_ERR_PARSE, "%s dimension numbers: spatial dimension %u is missing (%u spatial dimensions)",
                          which, k, n_digits);
    if (*n_sp != UINT32_MAX && *n_sp != n_digits)
        return err_at(p, st, PLUMB_ERR_PARSE, "%s dimension numbers: %u spatial dimensions, but the input has %u",
                      which, n_digits, *n_sp);
    *n_sp = n_digits;
    for (uint32_t k = 0; k < n_digits; k++)
        sp[k] = pos_of[k];
    return true;
}

/* `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` */
static bool conv_dim_numbers(P *p, ir_conv *cv)
{
    uint32_t n = UINT32_MAX;
    if (!conv_dims_list(p, 'b', 'f', &cv->in_batch, &cv->in_feature, cv->in_spatial, &n, "input") ||
        !expect_kw(p, "x") ||
        !conv_dims_list(p, 'i', 'o', &cv->k_in_feature, &cv->k_out_feature, cv->k_spatial, &n, "kernel"))
        return false;
    if (!eat_arrow(p))
        return expected(p, "'->'");
    if (!conv_dims_list(p, 'b', 'f', &cv->out_batch, &cv->out_feature, cv->out_spatial, &n, "output"))
        return false;
    cv->n_spatial = n;
    return true;
}

/* A window list into a fixed array: at most IR_CONV_MAX_SPATIAL entries. */
static bool conv_fixed(P *p, size_t off, const ir_ints *l, int64_t *dst, uint32_t *n, const char *name)
{
    if (l->n > IR_CONV_MAX_SPATIAL)
        return err_at(p, off, PLUMB_ERR_LIMIT, "convolution: %s has %u entries (at most %d spatial dimensions)", name,
                      l->n, IR_CONV_MAX_SPATIAL);
    for (uint32_t i = 0; i < l->n; i++)
        dst[i] = l->v[i];
    *n = l->n;
    return true;
}

/* Booleans of window_reversal / reverse: `true`/`false`, or 0/1. */
static bool conv_bool_list(P *p, char close, ir_conv *cv)
{
    uint32_t n = 0;
    ws(p);
    size_t st = p->pos;
    if (!eat(p, close)) {
        do {
            ws(p);
            size_t off = p->pos;
            bool b = false;
            if (peek(p) == 't' || peek(p) == 'f') {
                if (!attr_bool(p, &b))
                    return false;
            } else {
                int64_t v;
                if (!parse_i64(p, &v))
                    return false;
                if (v != 0 && v != 1)
                    return err_at(p, off, PLUMB_ERR_PARSE, "convolution: window reversal entry %lld is not a boolean", (long long)v);
                b = v == 1;
            }
            if (n >= IR_CONV_MAX_SPATIAL)
                return err_at(p, st, PLUMB_ERR_LIMIT, "convolution: window reversal has more than %d entries", IR_CONV_MAX_SPATIAL);
            cv->reversal[n++] = b;
        } while (eat(p, ','));
        if (!expect(p, close))
            return false;
    }
    cv->n_reversal = n;
    return true;
}

/* window_reversal: array<i1: ...>, dense<[...]> : tensor<Nxi1>, dense<b> : tensor<Nxi1>, [...] */
static bool conv_reversal_attr(P *p, ir_conv *cv)
{
    if (eat_kw(p, "array")) {
        if (!expect(p, '<') || !expect_kw(p, "i1"))
            return false;
        if (eat(p, '>')) {
            cv->n_reversal = 0;
            return true;
        }
        return expect(p, ':') && conv_bool_list(p, '>', cv);
    }
    if (eat_kw(p, "dense")) {
        if (!expect(p, '<'))
            return false;
        bool splat = peek(p) != '[';
        if (splat) {
            bool b;
            if (!attr_bool(p, &b) || !expect(p, '>'))
                return false;
            cv->reversal[0] = b;
            cv->n_reversal = 1;
        } else if (!expect(p, '[') || !conv_bool_list(p, ']', cv) || !expect(p, '>')) {
            return false;
        }
        if (eat(p, ':')) {
            ir_type t;
            ws(p);
            size_t toff = p->pos;
            if (!parse_type(p, &t))
                return false;
            if (t.rank != 1 || t.dtype != PLUMB_I1 || t.dims[0] < 0 || t.dims[0] > IR_CONV_MAX_SPATIAL)
                return err_at(p, toff, PLUMB_ERR_PARSE, "convolution: window_reversal needs a rank-1 i1 tensor type of at most %d entries",
                              IR_CONV_MAX_SPATIAL);
            if (splat) {
                for (int64_t i = 1; i < t.dims[0]; i++)
                    cv->reversal[i] = cv->reversal[0];
                cv->n_reversal = (uint32_t)t.dims[0];
            } else if (t.dims[0] != (int64_t)cv->n_reversal) {
                return err_at(p, toff, PLUMB_ERR_PARSE, "convolution: window_reversal has %u entries but its type has %lld",
                              cv->n_reversal, (long long)t.dims[0]);
            }
        }
        return true;
    }
    return expect(p, '[') && conv_bool_list(p, ']', cv);
}

/* `[[lo, hi], ...]` */
static bool conv_pad_pairs(P *p, ir_conv *cv)
{
    ws(p);
    size_t st = p->pos;
    uint32_t n = 0;
    if (!expect(p, '['))
        return false;
    if (!eat(p, ']')) {
        do {
            if (n >= IR_CONV_MAX_SPATIAL)
                return err_at(p, st, PLUMB_ERR_LIMIT, "convolution: padding has more than %d rows", IR_CONV_MAX_SPATIAL);
            ws(p);
            size_t off = p->pos;
            ir_ints row;
            if (!parse_int_list(p, &row))
                return false;
            if (row.n != 2)
                return err_at(p, off, PLUMB_ERR_PARSE, "convolution: padding row %u has %u entries, expected [low, high]", n, row.n);
            cv->pad_lo[n] = row.v[0];
            cv->pad_hi[n] = row.v[1];
            n++;
        } while (eat(p, ','));
        if (!expect(p, ']'))
            return false;
    }
    cv->n_padding = n;
    return true;
}

/* padding: dense<[[lo, hi], ...]> : tensor<Nx2xi64>, or dense<v> : tensor<Nx2xi64> */
static bool conv_padding_attr(P *p, ir_conv *cv)
{
    if (!eat_kw(p, "dense"))
        return conv_pad_pairs(p, cv);
    if (!expect(p, '<'))
        return false;
    bool splat = peek(p) != '[';
    int64_t sv = 0;
    if (splat) {
        if (!parse_i64(p, &sv))
            return false;
    } else if (!conv_pad_pairs(p, cv)) {
        return false;
    }
    if (!expect(p, '>'))
        return false;
    ws(p);
    size_t toff = p->pos;
    if (!eat(p, ':')) {
        if (splat)
            return expected(p, "': tensor<Nx2xi64>' after a splat padding");
        return true;
    }
    ir_type t;
    if (!parse_type(p, &t))
        return false;
    if (t.rank != 2 || t.dims[1] != 2 || !plumb_dtype_is_int(t.dtype) || t.dims[0] < 0 || t.dims[0] > IR_CONV_MAX_SPATIAL)
        return err_at(p, toff, PLUMB_ERR_PARSE, "convolution: padding needs an Nx2 integer tensor type (StableHLO C4)");
    if (splat) {
        for (int64_t i = 0; i < t.dims[0]; i++)
            cv->pad_lo[i] = cv->pad_hi[i] = sv;
        cv->n_padding = (uint32_t)t.dims[0];
    } else if (t.dims[0] != (int64_t)cv->n_padding) {
        return err_at(p, toff, PLUMB_ERR_PARSE, "convolution: padding has %u rows but its type has %lld", cv->n_padding,
                      (long long)t.dims[0]);
    }
    return true;
}

/* `#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>` or
 * `#stablehlo.conv<raw input_batch_dimension = 0, ...>` */
static bool conv_dimension_numbers_attr(P *p, ir_conv *cv)
{
    if (!expect_kw(p, "#stablehlo.conv") || !expect(p, '<'))
        return false;
    if (!eat_kw(p, "raw"))
        return conv_dim_numbers(p, cv) && expect(p, '>');
    ir_ints in_sp = {NULL, 0}, k_sp = {NULL, 0}, out_sp = {NULL, 0};
    field f[] = {{"input_batch_dimension", NULL, &cv->in_batch}, {"input_feature_dimension", NULL, &cv->in_feature},
                 {"input_spatial_dimensions", &in_sp, NULL},
                 {"kernel_input_feature_dimension", NULL, &cv->k_in_feature},
                 {"kernel_output_feature_dimension", NULL, &cv->k_out_feature},
                 {"kernel_spatial_dimensions", &k_sp, NULL},
                 {"output_batch_dimension", NULL, &cv->out_batch}, {"output_feature_dimension", NULL, &cv->out_feature},
                 {"output_spatial_dimensions", &out_sp, NULL}, {NULL, NULL, NULL}};
    ws(p);
    size_t off = p->pos;
    if (!struct_fields(p, "#stablehlo.conv", f))
        return false;
    if (in_sp.n != k_sp.n || in_sp.n != out_sp.n)
        return err_at(p, off, PLUMB_ERR_PARSE,
                      "convolution: input, kernel and output list %u, %u and %u spatial dimensions (StableHLO C12, C17, C19)",
                      in_sp.n, k_sp.n, out_sp.n);
    uint32_t n = 0;
    if (!conv_fixed(p, off, &in_sp, cv->in_spatial, &n, "input_spatial_dimensions") ||
        !conv_fixed(p, off, &k_sp, cv->k_spatial, &n, "kernel_spatial_dimensions") ||
        !conv_fixed(p, off, &out_sp, cv->out_spatial, &n, "output_spatial_dimensions"))
        return false;
    cv->n_spatial = n;
    return true;
}

/* The generic form's attributes (and the pretty form's dictionary). */
static bool conv_apply_attr(P *p, opb *ob, const char *name, bool *known)
{
    ir_conv *cv = conv_attrs(p, ob);
    if (!cv)
        return false;
    ws(p);
    size_t off = p->pos;
    ir_ints l;
#define IS(s) (strcmp(name, s) == 0)
    if (IS("dimension_numbers"))
        return conv_dimension_numbers_attr(p, cv);
    if (IS("window_strides"))
        return attr_ints(p, &l) && conv_fixed(p, off, &l, cv->strides, &cv->n_strides, name);
    if (IS("lhs_dilation"))
        return attr_ints(p, &l) && conv_fixed(p, off, &l, cv->lhs_dilation, &cv->n_lhs_dilation, name);
    if (IS("rhs_dilation"))
        return attr_ints(p, &l) && conv_fixed(p, off, &l, cv->rhs_dilation, &cv->n_rhs_dilation, name);
    if (IS("padding"))
        return conv_padding_attr(p, cv);
    if (IS("window_reversal"))
        return conv_reversal_attr(p, cv);
    if (IS("feature_group_count"))
        return attr_int(p, &cv->feature_group_count);
    if (IS("batch_group_count"))
        return attr_int(p, &cv->batch_group_count);
    if (IS("precision_config"))
        return precision_list(p, "#stablehlo", &ob->a);
#undef IS
    *known = false;
    return true;
}

/* StableHLO's pretty form: `(%lhs, %rhs) dim_numbers = [...]x[...]->[...],
 * window = {stride = [..], pad = [[..], ..], lhs_dilate = [..],
 * rhs_dilate = [..], reverse = [..]} {attrs} : (T, T) -> T`. */
static bool conv_pretty(P *p, opb *ob)
{
    ir_conv *cv = conv_attrs(p, ob);
    if (!cv || !expect(p, '(') || !parse_operand_list(p, ob, ')') || !kwarg(p, "dim_numbers") ||
        !conv_dim_numbers(p, cv))
        return false;
    if (eat(p, ',')) {
        if (!kwarg(p, "window") || !expect(p, '{'))
            return false;
        if (!eat(p, '}')) {
            do {
                ws(p);
                size_t off = p->pos;
                ir_ints l;
                bool ok;
                if (eat_kw(p, "stride"))
                    ok = expect(p, '=') && parse_int_list(p, &l) && conv_fixed(p, off, &l, cv->strides, &cv->n_strides, "stride");
                else if (eat_kw(p, "pad"))
                    ok = expect(p, '=') && conv_pad_pairs(p, cv);
                else if (eat_kw(p, "lhs_dilate"))
                    ok = expect(p, '=') && parse_int_list(p, &l) &&
                         conv_fixed(p, off, &l, cv->lhs_dilation, &cv->n_lhs_dilation, "lhs_dilate");
                else if (eat_kw(p, "rhs_dilate"))
                    ok = expect(p, '=') && parse_int_list(p, &l) &&
                         conv_fixed(p, off, &l, cv->rhs_dilation, &cv->n_rhs_dilation, "rhs_dilate");
                else if (eat_kw(p, "reverse"))
                    ok = expect(p, '=') && expect(p, '[') && conv_bool_list(p, ']', cv);
                else
                    return expected(p, "'stride', 'pad', 'lhs_dilate', 'rhs_dilate' or 'reverse'");
                if (!ok)
                    return false;
            } while (eat(p, ','));
            if (!expect(p, '}'))
                return false;
        }
    }
    return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
}

/* chlo.scan's assembly format (StableHLO's ChloOps.td, written as
 * stablehlo/tests/interpret/chlo/scan.mlir writes it):
 * `chlo.scan(%in, ...) inits(%init, ...) dimension=N [attributes {...}]
 * { ^bb0(...): ... } : (T, ...) -> (R, ...)`. The inits list gives M
 * (attrs.n_inits); is_reverse and is_associative are in the dictionary. */
static bool scan_pretty(P *p, opb *ob)
{
    if (!expect(p, '(') || !parse_operand_list(p, ob, ')'))
        return false;
    uint32_t n_in = ob->n_ops;
    if (!expect_kw(p, "inits") || !expect(p, '(') || !parse_operand_list(p, ob, ')'))
        return false;
    ob->a.n_inits = ob->n_ops - n_in;
    if (!kwarg(p, "dimension") || !parse_i64(p, &ob->a.dimension))
        return false;
    if (eat_kw(p, "attributes") && !attr_dict(p, ob))
        return false;
    ws(p);
    ob->regs_off = p->pos;
    ir_block *b = new_region(p, ob);
    return b && parse_region(p, b) && expect(p, ':') && sig_functional(p, ob);
}

/* The generic form's segment sizes must describe the op as written: inputs
 * + inits = the operands, the same number of carries as inits (and the
 * outputs the rest of the results, which finish_op checks against the
 * names bound). operandSegmentSizes is required: nothing else says where
 * the inputs end. */
static bool scan_segments(P *p, opb *ob)
{
    if (!ob->has_seg_ops)
        return err_at(p, ob->off, PLUMB_ERR_PARSE,
                      "op 'chlo.scan' needs attribute 'operandSegmentSizes' (array<i32: inputs, inits>)");
    if (ob->seg_ops[0] + ob->seg_ops[1] != (int64_t)ob->n_ops)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "operandSegmentSizes says %lld inputs and %lld inits, but the op has %u operands",
                      (long long)ob->seg_ops[0], (long long)ob->seg_ops[1], ob->n_ops);
    if (ob->has_seg_res && (ob->seg_res[1] != ob->seg_ops[1] || ob->seg_res[0] + ob->seg_res[1] != (int64_t)ob->n_rt))
        return err_at(p, ob->off, PLUMB_ERR_PARSE,
                      "resultSegmentSizes says %lld outputs and %lld carries, but the op has %lld inits and %u results",
                      (long long)ob->seg_res[0], (long long)ob->seg_res[1], (long long)ob->seg_ops[1], ob->n_rt);
    ob->a.n_inits = (uint32_t)ob->seg_ops[1];
    return true;
}

static bool reduce_pretty(P *p, opb *ob)
{
    /* (%in init: %init), ... */
    ir_value *ins[64], *inits[64];
    size_t in_off[64], init_off[64];
    uint32_t n = 0;
    do {
        if (!expect(p, '('))
            return false;
        if (n == 64)
            return err_at(p, p->pos, PLUMB_ERR_LIMIT, "reduce with more than 64 inputs");
        ws(p);
        in_off[n] = p->pos;
        if (!parse_use(p, &ins[n]) || !expect_kw(p, "init") || !expect(p, ':'))
            return false;
        ws(p);
        init_off[n] = p->pos;
        if (!parse_use(p, &inits[n]) || !expect(p, ')'))
            return false;
        n++;
    } while (eat(p, ','));
    for (uint32_t i = 0; i < n; i++)
        if (!push_operand(p, ob, ins[i], in_off[i]))
            return false;
    for (uint32_t i = 0; i < n; i++)
        if (!push_operand(p, ob, inits[i], init_off[i]))
            return false;
    ws(p);
    size_t app_off = p->pos;
    plumb_opcode body = PLUMB_OP_COUNT;
    if (eat_kw(p, "applies")) {
        ws(p);
        app_off = p->pos;
        const char *s;
        size_t sl;
        if (!ident(p, &s, &sl))
            return expected(p, "an op name after 'applies'");
        if (!plumb_op_lookup(s, sl, &body) || plumb_op_get(body)->arity != 2 || plumb_op_get(body)->results != 1 ||
            plumb_op_get(body)->syntax != PLUMB_SYN_EW)
            return err_at(p, app_off, PLUMB_ERR_PARSE, "'applies' needs a binary elementwise op, found '%.*s'", (int)sl, s);
        if (n != 1)
            return err_at(p, app_off, PLUMB_ERR_PARSE, "'applies' needs exactly one input, found %u", n);
    }
    if (!expect_kw(p, "across") || !kwarg(p, "dimensions") || !parse_int_list(p, &ob->a.dims))
        return false;
    if (!opt_attr_dict(p, ob) || !expect(p, ':') || !sig_functional(p, ob))
        return false;
    ir_block *blk = new_region(p, ob);
    if (!blk)
        return false;
    if (body != PLUMB_OP_COUNT) {
        ir_value *a0 = ir_block_add_arg(p->m, blk, &inits[0]->type);
        ir_value *a1 = ir_block_add_arg(p->m, blk, &inits[0]->type);
        if (!a0 || !a1)
            return nomem(p);
        ir_value *args[2] = {a0, a1};
        ir_op *o = ir_op_new(p->m, body, args, 2, &inits[0]->type, 1);
        if (!o)
            return nomem(p);
        o->loc = loc_at(p, app_off);
        ir_block_append(blk, o);
        ir_op *r = ir_op_new(p->m, PLUMB_OP_RETURN, o->results, 1, NULL, 0);
        if (!r)
            return nomem(p);
        r->loc = o->loc;
        ir_block_append(blk, r);
        return true;
    }
    /* reducer(%acc_i: T, %val_i: T) ... { body }: pair i holds block
     * arguments i and n + i */
    if (!expect_kw(p, "reducer"))
        return false;
    const char *names[128];
    size_t lens[128], offs[128];
    lnode *dls[128];
    ir_type *types = plumb_arena_array(p->m->arena, 2 * n, sizeof *types);
    if (!types)
        return nomem(p);
    for (uint32_t i = 0; i < n; i++) {
        if (!expect(p, '('))
            return false;
        if (!block_arg(p, blk, &names[i], &lens[i], &types[i], &offs[i], &dls[i]) || !expect(p, ','))
            return false;
        if (!block_arg(p, blk, &names[n + i], &lens[n + i], &types[n + i], &offs[n + i], &dls[n + i]) ||
            !expect(p, ')'))
            return false;
    }
    ws(p);
    if (p->pos >= p->len || p->src[p->pos] != '{')
        return expected(p, "'{'");
    if (!enter(p) || !push_scope(p))
        return false;
    p->pos++;
    for (uint32_t i = 0; i < 2 * n; i++) {
        ir_value *v = ir_block_add_arg(p->m, blk, &types[i]);
        if (!v)
            return nomem(p);
        if (!bind_arg(p, names[i], lens[i], offs[i], v) || !want_arg_loc(p, v, dls[i]))
            return false;
    }
    if (!parse_ops(p, blk) || !expect(p, '}'))
        return false;
    pop_scope(p);
    leave(p);
    return true;
}

static bool slice_pretty(P *p, opb *ob)
{
    if (!add_operand(p, ob) || !expect(p, '['))
        return false;
    int64_t st[PLUMB_MAX_RANK], li[PLUMB_MAX_RANK], sd[PLUMB_MAX_RANK];
    uint32_t n = 0;
    if (!eat(p, ']')) {
        do {
            if (n == PLUMB_MAX_RANK)
                return err_at(p, p->pos, PLUMB_ERR_UNSUPPORTED, "unsupported: slice of rank above %d", PLUMB_MAX_RANK);
            sd[n] = 1;
            if (!parse_i64(p, &st[n]) || !expect(p, ':') || !parse_i64(p, &li[n]))
                return false;
            if (eat(p, ':') && !parse_i64(p, &sd[n]))
                return false;
            n++;
        } while (eat(p, ','));
        if (!expect(p, ']'))
            return false;
    }
    ob->a.start = ir_ints_make(p->m, st, n);
    ob->a.limit = ir_ints_make(p->m, li, n);
    ob->a.strides = ir_ints_make(p->m, sd, n);
    if (n && (!ob->a.start.v || !ob->a.limit.v || !ob->a.strides.v))
        return nomem(p);
    return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
}

static bool check_pretty(P *p, opb *ob)
{
    bool is_const = ob->code == PLUMB_OP_EXPECT_EQ_CONST || ob->code == PLUMB_OP_EXPECT_CLOSE_CONST ||
                    ob->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
    bool paren = eat(p, '(');
    if (!add_operand(p, ob) || !expect(p, ','))
        return false;
    if (is_const) {
        if (!dense_value(p, &ob->a))
            return false;
    } else if (!add_operand(p, ob)) {
        return false;
    }
    if (paren && !expect(p, ')'))
        return false;
    bool close = ob->code == PLUMB_OP_EXPECT_CLOSE || ob->code == PLUMB_OP_EXPECT_CLOSE_CONST;
    bool almost = ob->code == PLUMB_OP_EXPECT_ALMOST_EQ || ob->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
    while (!paren && eat(p, ',')) {
        /* keyword values carry no `: type` suffix here: a ':' starts the
         * signature */
        ws(p);
        size_t off = p->pos;
        if (close && eat_kw(p, "max_ulp_difference")) {
            if (!expect(p, '=') || !parse_ulp(p, &ob->a.max_ulp))
                return false;
        } else if (close && eat_kw(p, "min_ulp_difference")) {
            if (!expect(p, '=') || !parse_ulp(p, &ob->a.min_ulp))
                return false;
        } else if (almost && eat_kw(p, "tolerance")) {
            if (!expect(p, '=') || !attr_float(p, &ob->a.tolerance, false))
                return false;
        } else {
            p->pos = off;
            return expected(p, close ? "'max_ulp_difference' or 'min_ulp_difference'" : almost ? "'tolerance'" : "':'");
        }
    }
    if (!opt_attr_dict(p, ob))
        return false;
    if (is_const && !paren && peek(p) != ':')
        return true;
    if (!expect(p, ':'))
        return false;
    ws(p);
    ob->ot_off = p->pos;
    if (peek(p) == '(')
        return sig_functional(p, ob);
    if (!parse_types(p, &ob->ot, &ob->n_ot, false))
        return false;
    if (ob->n_ot == 1 && ob->n_ops == 2) {
        /* `: T` for both sides */
        ir_type *t2 = plumb_arena_array(p->m->arena, 2, sizeof *t2);
        if (!t2)
            return nomem(p);
        t2[0] = t2[1] = ob->ot[0];
        ob->ot = t2;
        ob->n_ot = 2;
    }
    return true;
}

static bool custom_call_target(const char *s, size_t n, plumb_opcode *c);

/* `%r = stablehlo.custom_call @check.eq(%actual, %expected) : (T, T) ->
 * tensor<i1>`: the check of StableHLO's older testdata generation, which
 * stablehlo-translate --interpret still runs (evalCustomCallCheckEq in
 * stablehlo/tools/StablehloTranslateMain.cpp): integer and i1 elements must
 * be equal (check.expect_eq), anything else is compared as
 * check.expect_almost_eq with tolerance 1e-4. Its result is a tensor<i1>
 * that is true whenever it exists: upstream's run stops at a failing check,
 * plumb's counts the failure and exits 1 at the end. So it becomes two ops,
 * the check and a constant true bound to the result's name, which is also
 * the form `plumb fmt` prints (docs/format.md). */
static bool legacy_check_eq(P *p, opb *ob, ir_block *blk, def_name *defs, uint32_t n_defs, ir_op **check, ir_op **cst)
{
    if (ob->n_ops != 2)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "'@check.eq' takes 2 operands (actual, expected), found %u", ob->n_ops);
    if (ob->n_rt != 1 || ob->rt[0].tuple || ob->rt[0].rank != 0 || ob->rt[0].dtype != PLUMB_I1)
        return err_at(p, ob->ot_off, PLUMB_ERR_PARSE, "'@check.eq' has one result, of type tensor<i1>");
    plumb_dtype et = ob->ops[1]->type.dtype;
    if (ob->ops[1]->type.tuple || !(plumb_dtype_is_int(et) || et == PLUMB_I1)) {
        ob->code = PLUMB_OP_EXPECT_ALMOST_EQ;
        ob->a.tolerance = 1e-4;
    }
    ir_type rt = ob->rt[0];
    ob->rt = NULL;
    ob->n_rt = 0;
    ob->n_defs = 0;
    if (!finish_op(p, ob, blk, NULL, 0, check))
        return false;
    opb cb;
    memset(&cb, 0, sizeof cb);
    attrs_default(&cb.a);
    cb.code = PLUMB_OP_CONSTANT;
    cb.off = ob->off;
    plumb_tensor *t = plumb_arena_alloc(p->m->arena, sizeof *t);
    unsigned char *one = plumb_arena_alloc(p->m->arena, 1);
    cb.rt = plumb_arena_alloc(p->m->arena, sizeof *cb.rt);
    if (!t || !one || !cb.rt)
        return nomem(p);
    memset(t, 0, sizeof *t);
    *one = 1;
    t->dtype = PLUMB_I1;
    t->rank = 0;
    t->nbytes = 1;
    t->data = one;
    t->owned = false;
    cb.a.value = t;
    ir_attrs_note_splat(&cb.a);
    cb.rt[0] = rt;
    cb.n_rt = 1;
    uint32_t total = 0;
    for (uint32_t i = 0; i < n_defs; i++)
        total += defs[i].count;
    if (total != 1)
        return err_at(p, n_defs ? defs[0].off : ob->off, PLUMB_ERR_PARSE, "'@check.eq' has 1 result but %u value%s defined",
                      total, total == 1 ? " is" : "s are");
    cb.n_defs = 1;
    return finish_op(p, &cb, blk, defs, n_defs, cst);
}

/* One op of is_close_check's reading, appended to blk; its result, or NULL
 * (out of memory, reported). */
static ir_value *is_close_step(P *p, ir_block *blk, plumb_opcode code, ir_value *x, ir_value *y, const ir_type *t,
                               ir_cmp_dir dir, plumb_loc loc)
{
    ir_value *ins[2] = {x, y};
    ir_op *op = ir_op_new(p->m, code, ins, y ? 2 : 1, t, 1);
    if (!op) {
        nomem(p);
        return NULL;
    }
    attrs_default(&op->a);
    if (code == PLUMB_OP_COMPARE)
        op->a.cmp_dir = dir;
    op->loc = loc;
    ir_block_append(blk, op);
    return op->results[0];
}

/* check.expect_is_close %actual, %expected, %abs_error, %samples : T, T, E, S
 * (generic: "check.expect_is_close"(...) : (T, T, E, S) -> ()): the check
 * of one generation of StableHLO's math tests (stablehlo/tests/math/
 * asin_*.mlir at openxla/stablehlo 22a1351, written by its
 * generate_tests.py). Each element of actual must lie within abs_error of
 * expected; generate_tests.py computes abs_error as atol * scale + rtol *
 * |expected| and sets it to 0 where expected is not finite, so there only
 * the value itself (an equal infinity, or a NaN for a NaN) passes. samples,
 * the op's input, serves upstream's report only. plumb has no op of its
 * own for this check: it reads it as the ops that decide it, per element
 *   ok = |actual - expected| <= abs_error  or  actual == expected
 *        or  (actual != actual and expected != expected)
 * (|.| the modulus for complex elements, abs_error of the component type),
 * followed by check.expect_eq_const(ok, true), all at this op's position,
 * so a failing element is counted and reported at its index like any
 * check's (docs/format.md, "check.expect_is_close"). */
static bool is_close_check(P *p, ir_block *blk, size_t off, bool generic_form, uint32_t n_defs, ir_op **last)
{
    static const char nm[] = "check.expect_is_close";
    if (n_defs)
        return err_at(p, off, PLUMB_ERR_PARSE, "'%s' has no results, but %u value%s defined", nm, n_defs,
                      n_defs == 1 ? " is" : "s are");
    opb ob;
    memset(&ob, 0, sizeof ob);
    attrs_default(&ob.a);
    ob.code = PLUMB_OP_EXPECT_EQ_CONST;
    ob.off = off;
    if (generic_form) {
        if (!expect(p, '(') || !parse_operand_list(p, &ob, ')'))
            return false;
        if (!opt_attr_dict(p, &ob) || !expect(p, ':') || !sig_functional(p, &ob))
            return false;
        if (ob.n_rt)
            return err_at(p, ob.ot_off, PLUMB_ERR_PARSE, "'%s' has no results, but its signature declares %u", nm, ob.n_rt);
    } else {
        do {
            if (!add_operand(p, &ob))
                return false;
        } while (eat(p, ','));
        if (!opt_attr_dict(p, &ob) || !expect(p, ':'))
            return false;
        ws(p);
        ob.ot_off = p->pos;
        if (!parse_types(p, &ob.ot, &ob.n_ot, false))
            return false;
    }
    if (ob.n_ops != 4)
        return err_at(p, off, PLUMB_ERR_PARSE, "'%s' takes 4 operands (actual, expected, abs_error, samples), found %u", nm,
                      ob.n_ops);
    if (ob.n_ot != 4)
        return err_at(p, ob.ot_off, PLUMB_ERR_PARSE, "'%s' has 4 operands but its signature lists %u type%s", nm, ob.n_ot,
                      ob.n_ot == 1 ? "" : "s");
    for (uint32_t i = 0; i < 4; i++)
        if (!ir_type_equal(&ob.ops[i]->type, &ob.ot[i])) {
            char want[256], got[256];
            type_str(&ob.ot[i], want, sizeof want);
            type_str(&ob.ops[i]->type, got, sizeof got);
            return err_at(p, ob.op_offs[i], PLUMB_ERR_PARSE, "operand %u of '%s' has type %s but the signature says %s", i, nm,
                          got, want);
        }
    const ir_type *ta = &ob.ops[0]->type, *te = &ob.ops[2]->type, *ts = &ob.ops[3]->type;
    plumb_dtype dt = ta->dtype;
    bool cplx = plumb_dtype_is_complex(dt);
    if (ta->tuple || !(plumb_dtype_is_float(dt) || cplx))
        return err_at(p, ob.op_offs[0], PLUMB_ERR_PARSE, "operand 0 (actual) of '%s' needs a floating-point or complex element type",
                      nm);
    if (!ir_type_equal(ta, &ob.ops[1]->type))
        return err_at(p, ob.op_offs[1], PLUMB_ERR_PARSE, "operand 1 (expected) of '%s' needs the type of operand 0 (actual)", nm);
    for (uint32_t d = 0; d < ta->rank; d++)
        if (ta->dims[d] < 0)
            return err_at(p, ob.op_offs[0], PLUMB_ERR_PARSE, "operand 0 (actual) of '%s' needs a static shape", nm);
    ir_type rt = *ta;   /* |actual - expected| and abs_error: the component type */
    rt.dtype = cplx ? plumb_dtype_component(dt) : dt;
    if (!ir_type_equal(te, &rt)) {
        char want[256];
        type_str(&rt, want, sizeof want);
        return err_at(p, ob.op_offs[2], PLUMB_ERR_PARSE, "operand 2 (abs_error) of '%s' needs type %s", nm, want);
    }
    bool same_shape = !ts->tuple && ts->rank == ta->rank;
    for (uint32_t d = 0; same_shape && d < ta->rank; d++)
        same_shape = ts->dims[d] == ta->dims[d];
    if (!same_shape)
        return err_at(p, ob.op_offs[3], PLUMB_ERR_PARSE, "operand 3 (samples) of '%s' needs the shape of operand 0 (actual)", nm);
    ir_type bt = *ta;
    bt.dtype = PLUMB_I1;
    ir_value *a = ob.ops[0], *e = ob.ops[1];
    plumb_loc loc = loc_at(p, off);
    ir_value *diff, *ad, *within, *eq, *na, *ne, *both, *ok;
    if (!(diff = is_close_step(p, blk, PLUMB_OP_SUBTRACT, a, e, ta, IR_CMP_EQ, loc)) ||
        !(ad = is_close_step(p, blk, PLUMB_OP_ABS, diff, NULL, &rt, IR_CMP_EQ, loc)) ||
        !(within = is_close_step(p, blk, PLUMB_OP_COMPARE, ad, ob.ops[2], &bt, IR_CMP_LE, loc)) ||
        !(eq = is_close_step(p, blk, PLUMB_OP_COMPARE, a, e, &bt, IR_CMP_EQ, loc)) ||
        !(na = is_close_step(p, blk, PLUMB_OP_COMPARE, a, a, &bt, IR_CMP_NE, loc)) ||
        !(ne = is_close_step(p, blk, PLUMB_OP_COMPARE, e, e, &bt, IR_CMP_NE, loc)) ||
        !(both = is_close_step(p, blk, PLUMB_OP_AND, na, ne, &bt, IR_CMP_EQ, loc)) ||
        !(ok = is_close_step(p, blk, PLUMB_OP_OR, within, eq, &bt, IR_CMP_EQ, loc)) ||
        !(ok = is_close_step(p, blk, PLUMB_OP_OR, ok, both, &bt, IR_CMP_EQ, loc)))
        return false;
    /* The all-true constant is materialized like the literal dense<true>
     * of that type would be, so its size is checked the same way (overflow-
     * safe, against the per-literal limit) before anything is allocated: a
     * short text can name a huge shape, e.g. a callee's argument type. */
    uint64_t n, nbytes;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!plumb_shape_size(PLUMB_I1, bt.rank, bt.dims, p->max_bytes, &n, &nbytes, &sd)) {
        char tn[256];
        type_str(ta, tn, sizeof tn);
        return err_at(p, ob.op_offs[0], sd.code ? sd.code : PLUMB_ERR_LIMIT, "'%s' on %s: its per-element verdict (i1, one byte each): %s", nm, tn, sd.msg);
    }
    plumb_tensor *t = plumb_arena_alloc(p->m->arena, sizeof *t);
    unsigned char *ones = plumb_arena_alloc(p->m->arena, nbytes ? (size_t)nbytes : 1);
    if (!t || !ones)
        return nomem(p);
    memset(t, 0, sizeof *t);
    memset(ones, 1, nbytes ? (size_t)nbytes : 1);
    t->dtype = PLUMB_I1;
    t->rank = bt.rank;
    for (uint32_t d = 0; d < bt.rank; d++)
        t->dims[d] = bt.dims[d];
    t->nbytes = (size_t)nbytes;
    t->data = ones;
    t->owned = false;
    ir_op *chk = ir_op_new(p->m, PLUMB_OP_EXPECT_EQ_CONST, &ok, 1, NULL, 0);
    if (!chk)
        return nomem(p);
    chk->a = ob.a;
    chk->a.value = t;
    ir_attrs_note_splat(&chk->a);
    chk->loc = loc;
    ir_block_append(blk, chk);
    *last = chk;
    return true;
}

/* `stablehlo.custom_call @mhlo.NAME(...) {mhlo.attributes = {...},
 * mhlo.version = 1 : i64}`: how XLA's MHLO-to-StableHLO legalization
 * writes an MHLO op that StableHLO has no op for (rewriteMhloOpAsCustomCall
 * in xla's hlo_legalize_to_stablehlo), so JAX and torch-xla exports carry
 * GELU's erf as `@mhlo.erf` and top-k as `@mhlo.topk`. plumb reads such a
 * call as the op of the same meaning it has: an elementwise op without
 * attributes under its chlo or stablehlo name (mhlo.erf is chlo.erf), and
 * mhlo.topk as chlo.top_k (its `k`; `largest = false` has no chlo form and
 * is refused). Any other target stays unsupported. */
static bool mhlo_target(const char *s, size_t n, plumb_opcode *c)
{
    if (n <= 5 || memcmp(s, "mhlo.", 5) != 0 || n - 5 > 48)
        return false;
    const char *name = s + 5;
    size_t len = n - 5;
    if (len == 4 && memcmp(name, "topk", 4) == 0) {
        *c = PLUMB_OP_TOP_K;
        return true;
    }
    char buf[64];
    static const char *const dialects[] = {"chlo.", "stablehlo."};
    for (size_t i = 0; i < 2; i++) {
        size_t dl = strlen(dialects[i]);
        memcpy(buf, dialects[i], dl);
        memcpy(buf + dl, name, len);
        if (plumb_op_lookup(buf, dl + len, c) && plumb_op_get(*c)->syntax == PLUMB_SYN_EW &&
            plumb_op_get(*c)->kind == PLUMB_KIND_ELEMENTWISE)
            return true;
    }
    return false;
}

/* After an @mhlo.NAME call's attributes are read (mhlo.attributes by
 * mhlo_attr_dict while the dict was read): `mhlo.version` and an empty
 * `backend_config` say nothing about the value; both are dropped so that
 * the op prints as itself. */
static bool mhlo_attrs(P *p, opb *ob, size_t off, const char *s, size_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < ob->a.n_extra; i++) {
        const char *nm = ob->a.extra[i].name, *tx = ob->a.extra[i].text;
        if (strcmp(nm, "mhlo.version") == 0 || (strcmp(nm, "backend_config") == 0 && strcmp(tx, "\"\"") == 0))
            continue;
        ob->a.extra[k++] = ob->a.extra[i];
    }
    ob->a.n_extra = k;
    if (ob->code == PLUMB_OP_TOP_K && !ob->mhlo_k)
        return err_at(p, off, PLUMB_ERR_PARSE, "'@%.*s' needs mhlo.attributes = {k = N : i64}", (int)n, s);
    return true;
}

static bool custom_call(P *p, opb *ob)
{
    ws(p);
    size_t off = p->pos;
    const char *s;
    size_t n;
    if (!symbol_ref(p, &s, &n))
        return false;
    plumb_opcode c;
    bool mhlo = false;
    if (n == 8 && memcmp(s, "check.eq", 8) == 0) {
        c = PLUMB_OP_EXPECT_EQ;   /* until its operand types are known: legacy_check_eq */
        ob->check_eq = true;
    } else if (mhlo_target(s, n, &c)) {
        mhlo = true;
    } else if (!custom_call_target(s, n, &c))
        return err_at(p, off, PLUMB_ERR_UNSUPPORTED, "unsupported: custom_call target '@%.*s' is not in plumb's op set",
                      (int)(n > 80 ? 80 : n), s);
    ob->code = c;
    ob->mhlo = mhlo;
    if (!expect(p, '(') || !parse_operand_list(p, ob, ')'))
        return false;
    if (!opt_attr_dict(p, ob) || (mhlo && !mhlo_attrs(p, ob, off, s, n)) || !expect(p, ':') || !sig_functional(p, ob))
        return false;
    bool is_const = c == PLUMB_OP_EXPECT_EQ_CONST || c == PLUMB_OP_EXPECT_CLOSE_CONST || c == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
    if (is_const && !ob->a.value)
        return err_at(p, off, PLUMB_ERR_PARSE, "'@%.*s' needs a 'value = dense<...> : tensor<...>' attribute", (int)n, s);
    if (c == PLUMB_OP_SHAPE_ASSERTION && !ob->a.message)
        return err_at(p, off, PLUMB_ERR_PARSE, "'@shape_assertion' needs an 'error_message = \"...\"' attribute");
    return true;
}

static bool pretty(P *p, opb *ob, bool *has_sig)
{
    bool more;
    plumb_opcode c = ob->code;
    *has_sig = true;
    if (plumb_op_get(c)->syntax == PLUMB_SYN_EW) {
        if (!operands_then(p, ob, &more))
            return false;
        if (more)
            return expected(p, "a value");
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    }
    switch (c) {
    case PLUMB_OP_REDUCE_PRECISION: {
        if (!operands_then(p, ob, &more) || !need_more(p, more, "format = eXmY") || !kwarg(p, "format"))
            return false;
        ws(p);
        size_t off = p->pos;
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "a format 'eXmY'");
        unsigned e = 0, m = 0;
        int used = 0;
        char buf[32];
        snprintf(buf, sizeof buf, "%.*s", (int)(n > 30 ? 30 : n), s);
        if (sscanf(buf, "e%2um%2u%n", &e, &m, &used) != 2 || (size_t)used != n || e > 64 || m > 64)
            return err_at(p, off, PLUMB_ERR_PARSE, "expected a format 'eXmY', found '%s'", buf);
        ob->a.exponent_bits = (int32_t)e;
        ob->a.mantissa_bits = (int32_t)m;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    }
    /* StableHLO prints `%a, type = FFT, length = [4] : (T) -> U` */
    case PLUMB_OP_FFT: {
        int e;
        if (!operands_then(p, ob, &more) || !need_more(p, more, "type = ...") || !kwarg(p, "type") ||
            !parse_enum(p, fft_types, "an fft type (FFT, IFFT, RFFT or IRFFT)", &e) || !expect(p, ',') ||
            !kwarg(p, "length") || !parse_int_list(p, &ob->a.fft_length))
            return false;
        ob->a.fft_type = (ir_fft_type)e;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    }
    /* StableHLO prints `%a, lower = true : T` (lower omitted when false) */
    case PLUMB_OP_CHOLESKY:
        if (!operands_then(p, ob, &more))
            return false;
        if (more && (!kwarg(p, "lower") || !attr_bool(p, &ob->a.lower)))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_COMPARE: {
        int e;
        if (!parse_enum(p, cmp_dirs, "a comparison direction (EQ, NE, LT, LE, GT, GE)", &e) || !expect(p, ','))
            return false;
        ob->a.cmp_dir = (ir_cmp_dir)e;
        if (!add_operand(p, ob) || !expect(p, ',') || !add_operand(p, ob))
            return false;
        if (eat(p, ',')) {
            if (!parse_enum(p, cmp_types, "a comparison type (FLOAT, TOTALORDER, WEAKORDER, SIGNED, UNSIGNED)", &e))
                return false;
            ob->a.cmp_type = (ir_cmp_type)e;
        }
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    }
    case PLUMB_OP_CONSTANT: {
        if (!opt_attr_dict(p, ob))
            return false;
        ir_type t;
        if (!dense_literal(p, &ob->a.value, &t))
            return false;
        ir_attrs_note_splat(&ob->a);   /* once, here: the compiler then reads one element */
        ob->rt = plumb_arena_alloc(p->m->arena, sizeof *ob->rt);
        if (!ob->rt)
            return nomem(p);
        ob->rt[0] = t;
        ob->n_rt = 1;
        return true;
    }
    case PLUMB_OP_IOTA:
        if (!kwarg(p, "dim") || !parse_i64(p, &ob->a.dimension) || !opt_attr_dict(p, ob) || !expect(p, ':'))
            return false;
        ob->rt = plumb_arena_alloc(p->m->arena, sizeof *ob->rt);
        if (!ob->rt)
            return nomem(p);
        ob->n_rt = 1;
        return parse_type(p, &ob->rt[0]);
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_REVERSE:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "dims = [...]") || !kwarg(p, "dims") ||
            !parse_int_list(p, &ob->a.dims))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_SLICE:
        return slice_pretty(p, ob);
    case PLUMB_OP_DYNAMIC_SLICE:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "sizes = [...]") || !kwarg(p, "sizes") ||
            !parse_int_list(p, &ob->a.sizes))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_CONCATENATE:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "dim = N") || !kwarg(p, "dim") ||
            !parse_i64(p, &ob->a.dimension))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_PAD:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "low = [...]") || !kwarg(p, "low") ||
            !parse_int_list(p, &ob->a.low) || !expect(p, ',') || !kwarg(p, "high") || !parse_int_list(p, &ob->a.high) ||
            !expect(p, ',') || !kwarg(p, "interior") || !parse_int_list(p, &ob->a.interior))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_REDUCE:
        return reduce_pretty(p, ob);
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_DOT:
        if (!operands_then(p, ob, &more))
            return false;
        while (more) {
            if (c == PLUMB_OP_DOT_GENERAL && eat_kw(p, "batching_dims")) {
                if (!expect(p, '=') || !dims_x_dims(p, &ob->a.lhs_batch, &ob->a.rhs_batch))
                    return false;
            } else if (c == PLUMB_OP_DOT_GENERAL && eat_kw(p, "contracting_dims")) {
                if (!expect(p, '=') || !dims_x_dims(p, &ob->a.lhs_contract, &ob->a.rhs_contract))
                    return false;
            } else if (eat_kw(p, "precision")) {
                if (!expect(p, '=') || !precision_list(p, "#stablehlo", &ob->a))
                    return false;
            } else if (c == PLUMB_OP_DOT_GENERAL && eat_kw(p, "algorithm")) {
                if (!expect(p, '='))
                    return false;
                /* StableHLO's pretty form drops the tag; accepted either way */
                (void)eat_kw(p, "#stablehlo.dot_algorithm");
                if (!dot_algorithm_body(p, &ob->a.algorithm))
                    return false;
            } else {
                return expected(p, c == PLUMB_OP_DOT ? "'precision'"
                                                     : "'batching_dims', 'contracting_dims', 'precision' or 'algorithm'");
            }
            more = eat(p, ',');
        }
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV:   /* (%lhs, %rhs, %d_padding) and convolution's attributes */
        return conv_pretty(p, ob);
    case PLUMB_OP_SCAN:
        return scan_pretty(p, ob);
    case PLUMB_OP_TOP_K:
        if (!expect(p, '(') || !add_operand(p, ob) || !expect(p, ',') || !kwarg(p, "k") || !parse_i64(p, &ob->a.k) ||
            !expect(p, ')'))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    case PLUMB_OP_RNG_BIT_GENERATOR: {
        int e;
        if (!operands_then(p, ob, &more) || !need_more(p, more, "algorithm = ...") || !kwarg(p, "algorithm") ||
            !parse_enum(p, rng_algs, "an rng algorithm (DEFAULT, THREE_FRY or PHILOX)", &e))
            return false;
        ob->a.rng_alg = (ir_rng_alg)e;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_ew(p, ob);
    }
    case PLUMB_OP_CALL: {
        const char *s;
        size_t n;
        if (!symbol_ref(p, &s, &n))
            return false;
        if (!(ob->a.callee = plumb_arena_strndup(p->m->arena, s, n)))
            return nomem(p);
        if (!expect(p, '(') || !parse_operand_list(p, ob, ')'))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    }
    /* StableHLO's `composite "ns.name" %a, ... {composite_attributes = {...},
     * decomposition = @f, version = N : i32} : (T, ...) -> R`: the name is
     * kept verbatim as the attribute `name`, as the generic form writes it. */
    case PLUMB_OP_COMPOSITE: {
        ws(p);
        size_t st = p->pos;
        const char *unused;
        if (!string_value(p, &unused))
            return false;
        const char *text = plumb_arena_strndup(p->m->arena, p->src + st, p->pos - st);
        if (!text || !ir_add_extra_attr(p->m, &ob->a, "name", text))
            return nomem(p);
        if (!operands_then(p, ob, &more))
            return false;
        if (more)
            return expected(p, "a value");
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    }
    case PLUMB_OP_FUNC_RETURN:
    case PLUMB_OP_RETURN:
        *has_sig = false;
        if (peek(p) != '%')
            return opt_attr_dict(p, ob);
        if (!operands_then(p, ob, &more))
            return false;
        if (more)
            return expected(p, "a value");
        if (!opt_attr_dict(p, ob) || !expect(p, ':'))
            return false;
        ws(p);
        ob->ot_off = p->pos;
        return parse_types(p, &ob->ot, &ob->n_ot, false);
    /* StableHLO prints `stablehlo.while(%iterArg = %init, ...) : T, ...
     * cond { ... } do { ... }`, the regions without block headers. */
    case PLUMB_OP_WHILE: {
        *has_sig = false;
        const char **names = NULL;
        size_t *lens = NULL, *offs = NULL;
        uint32_t cap_n = 0, cap_l = 0, cap_o = 0, n = 0;
        if (!expect(p, '('))
            return false;
        if (!eat(p, ')')) {
            do {
                ws(p);
                size_t off = p->pos;
                const char *s;
                size_t len;
                if (!value_name(p, &s, &len) || !expect(p, '=') || !add_operand(p, ob))
                    return false;
                if (!grow_arr(p, (void **)&names, n, &cap_n, sizeof *names) ||
                    !grow_arr(p, (void **)&lens, n, &cap_l, sizeof *lens) ||
                    !grow_arr(p, (void **)&offs, n, &cap_o, sizeof *offs))
                    return false;
                names[n] = s;
                lens[n] = len;
                offs[n] = off;
                n++;
            } while (eat(p, ','));
            if (!expect(p, ')'))
                return false;
        }
        if (!opt_attr_dict(p, ob))
            return false;
        if (n) {
            if (!expect(p, ':'))
                return false;
            ws(p);
            ob->ot_off = p->pos;
            if (!parse_types(p, &ob->ot, &ob->n_ot, false))
                return false;
            if (ob->n_ot != n)
                return err_at(p, ob->ot_off, PLUMB_ERR_PARSE, "while has %u iteration values but %u types", n, ob->n_ot);
        }
        ob->rt = ob->ot;
        ob->n_rt = ob->n_ot;
        ws(p);
        ob->regs_off = p->pos;
        if (!eat_kw(p, "cond"))
            return expected(p, "'cond'");
        ir_block *cb = new_region(p, ob);
        if (!cb || !parse_region_named(p, cb, names, lens, offs, ob->ot, n))
            return false;
        if (!eat_kw(p, "do"))
            return expected(p, "'do'");
        ir_block *b = new_region(p, ob);
        return b && parse_region_named(p, b, names, lens, offs, ob->ot, n);
    }
    /* StableHLO prints `%a, %b {attrs} : tuple<...>` (the result type only;
     * the operands' are its elements, checked by the verifier's C1) and
     * `%t[1] {attrs} : (tuple<...>) -> T` (docs/spec/tuple.md). */
    case PLUMB_OP_TUPLE:
        if (!operands_then(p, ob, &more))
            return false;
        if (more)
            return expected(p, "an operand");
        if (!opt_attr_dict(p, ob) || !expect(p, ':'))
            return false;
        ob->rt = plumb_arena_alloc(p->m->arena, sizeof *ob->rt);
        if (!ob->rt)
            return nomem(p);
        ob->n_rt = 1;
        ws(p);
        {
            size_t toff = p->pos;
            if (!parse_type(p, &ob->rt[0]))
                return false;
            if (!ob->rt[0].tuple)
                return err_at(p, toff, PLUMB_ERR_PARSE, "stablehlo.tuple's type must be a tuple type");
        }
        return true;
    case PLUMB_OP_GET_TUPLE_ELEMENT:
        if (!add_operand(p, ob) || !expect(p, '[') || !parse_i64(p, &ob->a.tuple_index) || !expect(p, ']'))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    /* StableHLO prints `{attrs} %a, %b : T, U`: each operand's type once, the
     * results having the same types (C1), and `()` without operands. */
    case PLUMB_OP_OPTIMIZATION_BARRIER:
        *has_sig = false;
        if (!opt_attr_dict(p, ob))
            return false;
        if (eat(p, '('))
            return expect(p, ')');
        if (!operands_then(p, ob, &more))
            return false;
        if (more || ob->n_ops == 0)
            return expected(p, "an operand or '()'");
        if (!expect(p, ':'))
            return false;
        ws(p);
        ob->ot_off = p->pos;
        if (!parse_types(p, &ob->ot, &ob->n_ot, false))
            return false;
        ob->rt = ob->ot;
        ob->n_rt = ob->n_ot;
        return true;
    case PLUMB_OP_EXPECT_EQ:
    case PLUMB_OP_EXPECT_EQ_CONST:
    case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST:
    case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        return check_pretty(p, ob);
    case PLUMB_OP_SHAPE_ASSERTION:
        return err_at(p, ob->off, PLUMB_ERR_PARSE,
                      "write a shape assertion as stablehlo.custom_call @shape_assertion(%%pred, ...) {error_message = \"...\"} : (...) -> ()");
    /* The dynamic ops print as StableHLO does: operands, then `dim = N` or
     * `dims = [...]` where the op has them, the attribute dictionary and
     * always the functional signature. */
    case PLUMB_OP_GET_DIMENSION_SIZE:
    case PLUMB_OP_DYNAMIC_IOTA:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "dim = N") || !kwarg(p, "dim") ||
            !parse_i64(p, &ob->a.dimension))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
        if (!operands_then(p, ob, &more) || !need_more(p, more, "dims = [...]") || !kwarg(p, "dims") ||
            !parse_int_list(p, &ob->a.dims))
            return false;
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD:
        if (!operands_then(p, ob, &more))
            return false;
        if (more)
            return expected(p, "a value");
        return opt_attr_dict(p, ob) && expect(p, ':') && sig_functional(p, ob);
    default:
        break;
    }
    return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' has no pretty form; write it in the generic form \"%s\"(...)",
                  plumb_op_name(c), plumb_op_name(c));
}

/* `"name"(%a, ...) <{props}> ({region}, ...) {attrs} : (T, ...) -> R` */
/* The region a generic op must carry: reduce, sort and scatter take exactly
 * one, every other op none. Checked here rather than left to the verifier
 * because no printed form could carry a region the op does not take, nor
 * leave out one it does: formatting would change the program. */
static bool generic_regions(P *p, opb *ob)
{
    const char *name = plumb_op_name(ob->code);
    if (ob->code == PLUMB_OP_WHILE || ob->code == PLUMB_OP_IF) {
        if (ob->n_regs != 2)
            return err_at(p, ob->n_regs ? ob->regs_off : ob->off, PLUMB_ERR_PARSE,
                          ob->code == PLUMB_OP_IF ? "op '%s' needs two regions, true_branch and false_branch, found %u"
                                                  : "op '%s' needs two regions, cond and body, found %u",
                          name, ob->n_regs);
        return true;
    }
    if (ob->code == PLUMB_OP_SELECT_AND_SCATTER) {
        if (ob->n_regs != 2)
            return err_at(p, ob->n_regs ? ob->regs_off : ob->off, PLUMB_ERR_PARSE,
                          "op '%s' needs two regions, select and scatter, found %u", name, ob->n_regs);
        return true;
    }
    if (ob->code == PLUMB_OP_CASE) {
        if (ob->n_regs < 1)
            return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' needs at least one branch region (StableHLO C1)", name);
        return true;
    }
    const char *what = ob->code == PLUMB_OP_REDUCE || ob->code == PLUMB_OP_REDUCE_WINDOW ? "body"
                     : ob->code == PLUMB_OP_SORT ? "comparator"
                     : ob->code == PLUMB_OP_SCATTER ? "update_computation"
                     : ob->code == PLUMB_OP_MAP ? "computation"
                     : ob->code == PLUMB_OP_SCAN ? "body" : NULL;
    if (!what && ob->n_regs)
        return err_at(p, ob->regs_off, PLUMB_ERR_PARSE, "op '%s' takes no regions, found %u", name, ob->n_regs);
    if (what && ob->n_regs != 1)
        return err_at(p, ob->n_regs ? ob->regs_off : ob->off, PLUMB_ERR_PARSE,
                      "op '%s' needs exactly one %s region, found %u", name, what, ob->n_regs);
    return true;
}

/* Attributes StableHLO requires in the generic form and whose absence no
 * default stands for: slice's start_indices, limit_indices and strides
 * (the pretty form's omitted stride means 1; a generic slice spells all
 * three, as StableHLO's SliceOp requires). */
static bool generic_required(P *p, opb *ob)
{
    for (size_t i = 0; i < sizeof simple_attrs / sizeof simple_attrs[0]; i++)
        if (simple_attrs[i].op == ob->code && ob->code == PLUMB_OP_SLICE && !(ob->seen & (1u << i)))
            return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' needs attribute '%s'", plumb_op_name(ob->code),
                          simple_attrs[i].name);
    if (ob->code == PLUMB_OP_CONSTANT && !ob->a.value)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "op '%s' needs attribute 'value'", plumb_op_name(ob->code));
    return true;
}

static bool generic(P *p, opb *ob)
{
    if (!expect(p, '(') || !parse_operand_list(p, ob, ')'))
        return false;
    ws(p);
    if (p->pos + 1 < p->len && p->src[p->pos] == '<' && p->src[p->pos + 1] == '{') {
        p->pos++;
        if (!attr_dict(p, ob) || !expect(p, '>'))
            return false;
    }
    ws(p);
    /* The region list. Older MLIR printed it as `( {` (a blank, sometimes a
     * line break, before the first region: mhlo-era generic text such as
     * IREE's and XLA's tests), so blanks and comments may separate the two;
     * after the operands and properties a '(' can only open the regions. */
    size_t regs_at = p->pos;
    bool has_regs = false;
    if (p->pos < p->len && p->src[p->pos] == '(') {
        p->pos++;
        ws(p);
        has_regs = p->pos < p->len && p->src[p->pos] == '{';
        if (!has_regs)
            p->pos = regs_at;
    }
    if (has_regs) {
        ob->regs_off = regs_at;
        do {
            ir_block *b = new_region(p, ob);
            if (!b || !parse_region(p, b))
                return false;
        } while (eat(p, ','));
        if (!expect(p, ')'))
            return false;
    }
    if (!generic_regions(p, ob) || !opt_attr_dict(p, ob) || !generic_required(p, ob) || !expect(p, ':'))
        return false;
    return sig_functional(p, ob) && (ob->code != PLUMB_OP_SCAN || scan_segments(p, ob));
}

/* The target of a custom call: the check ops by their own names, JAX's
 * shape assertions by @shape_assertion. */
static bool custom_call_target(const char *s, size_t n, plumb_opcode *c)
{
    if (n == 15 && memcmp(s, "shape_assertion", 15) == 0) {
        *c = PLUMB_OP_SHAPE_ASSERTION;
        return true;
    }
    return plumb_op_lookup(s, n, c) && plumb_op_get(*c)->kind == PLUMB_KIND_CHECK && *c != PLUMB_OP_SHAPE_ASSERTION;
}

/* Properties `<{...}>` then the attribute dictionary, as the generic form
 * writes them. */
static bool generic_attrs(P *p, opb *ob)
{
    ws(p);
    if (p->pos + 1 < p->len && p->src[p->pos] == '<' && p->src[p->pos + 1] == '{') {
        p->pos++;
        if (!attr_dict(p, ob) || !expect(p, '>'))
            return false;
    }
    return opt_attr_dict(p, ob);
}

/* `"stablehlo.custom_call"(%a, ...) {call_target_name = "shape_assertion",
 * error_message = "...", has_side_effect = true} : (...) -> ()`: the
 * generic spelling of the custom calls op set v1 knows. The target decides
 * what the other attributes mean, so they are read twice: once to find
 * call_target_name, then as the target's op. */
static bool generic_custom_call(P *p, opb *ob)
{
    if (!expect(p, '(') || !parse_operand_list(p, ob, ')'))
        return false;
    size_t attrs_at = p->pos;
    ob->code = PLUMB_OP_SHAPE_ASSERTION;   /* first pass: only call_target_name matters */
    if (!generic_attrs(p, ob))
        return false;
    const char *target = NULL;
    for (uint32_t i = 0; i < ob->a.n_extra; i++)
        if (strcmp(ob->a.extra[i].name, "call_target_name") == 0)
            target = ob->a.extra[i].text;
    size_t tn = target ? strlen(target) : 0;
    if (!target || tn < 2 || target[0] != '"' || target[tn - 1] != '"')
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "'stablehlo.custom_call' needs a call_target_name = \"...\" attribute");
    plumb_opcode c;
    bool mhlo = false;
    if (tn - 2 == 8 && memcmp(target + 1, "check.eq", 8) == 0) {
        c = PLUMB_OP_EXPECT_EQ;   /* until its operand types are known: legacy_check_eq */
        ob->check_eq = true;
    } else if (mhlo_target(target + 1, tn - 2, &c)) {
        mhlo = true;
    } else if (!custom_call_target(target + 1, tn - 2, &c))
        return err_at(p, ob->off, PLUMB_ERR_UNSUPPORTED, "unsupported: custom_call target '@%.*s' is not in plumb's op set",
                      (int)(tn - 2 > 80 ? 80 : tn - 2), target + 1);
    p->pos = attrs_at;
    attrs_default(&ob->a);
    ob->seen = 0;
    ob->code = c;
    ob->mhlo = mhlo;
    ob->mhlo_dict = ob->mhlo_k = false;
    if (!generic_attrs(p, ob))
        return false;
    uint32_t k = 0;   /* the target is the op itself now: not an extra attribute */
    for (uint32_t i = 0; i < ob->a.n_extra; i++)
        if (strcmp(ob->a.extra[i].name, "call_target_name") != 0)
            ob->a.extra[k++] = ob->a.extra[i];
    ob->a.n_extra = k;
    if (mhlo) {
        /* the target's text outlives the attribute list it came from */
        char name[64];
        size_t nl = tn - 2 < sizeof name ? tn - 2 : sizeof name - 1;
        memcpy(name, target + 1, nl);
        if (!mhlo_attrs(p, ob, ob->off, name, nl))
            return false;
    }
    if (!expect(p, ':') || !sig_functional(p, ob))
        return false;
    bool is_const = c == PLUMB_OP_EXPECT_EQ_CONST || c == PLUMB_OP_EXPECT_CLOSE_CONST || c == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
    if (is_const && !ob->a.value)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "'@%s' needs a 'value = dense<...> : tensor<...>' attribute", plumb_op_name(c));
    if (c == PLUMB_OP_SHAPE_ASSERTION && !ob->a.message)
        return err_at(p, ob->off, PLUMB_ERR_PARSE, "'@shape_assertion' needs an 'error_message = \"...\"' attribute");
    return true;
}

static bool parse_stmt(P *p, ir_block *blk)
{
    def_name defs_small[8];
    def_name *defs = defs_small;
    uint32_t n_defs = 0, cap_defs = 8, total = 0;
    ws(p);
    if (peek(p) == '%') {
        do {
            ws(p);
            size_t off = p->pos;
            const char *s;
            size_t n;
            if (!value_name(p, &s, &n))
                return false;
            int64_t count = 1;
            if (p->pos < p->len && p->src[p->pos] == ':' && p->pos + 1 < p->len && is_digit((unsigned char)p->src[p->pos + 1])) {
                p->pos++;
                size_t coff = p->pos;
                if (!parse_i64(p, &count))
                    return false;
                if (count < 1 || count > 65536)
                    return err_at(p, coff, PLUMB_ERR_PARSE, "result count %lld is out of range", (long long)count);
            }
            if (defined_here(p, s, n))
                return err_at(p, off, PLUMB_ERR_PARSE, "redefinition of value '%%%.*s'", (int)n, s);
            for (uint32_t i = 0; i < n_defs; i++)
                if (defs[i].len == n && memcmp(defs[i].name, s, n) == 0)
                    return err_at(p, off, PLUMB_ERR_PARSE, "redefinition of value '%%%.*s'", (int)n, s);
            if (n_defs == cap_defs) {
                def_name *nd = plumb_arena_array(p->m->arena, (size_t)cap_defs * 2, sizeof *nd);
                if (!nd)
                    return nomem(p);
                memcpy(nd, defs, n_defs * sizeof *nd);
                defs = nd;
                cap_defs *= 2;
            }
            defs[n_defs].name = s;
            defs[n_defs].len = n;
            defs[n_defs].count = (uint32_t)count;
            defs[n_defs].off = off;
            n_defs++;
            total += (uint32_t)count;
            if (total > 65536)
                return err_at(p, off, PLUMB_ERR_PARSE, "too many results");
        } while (eat(p, ','));
        if (!expect(p, '='))
            return false;
    }
    opb ob;
    memset(&ob, 0, sizeof ob);
    attrs_default(&ob.a);
    ws(p);
    ob.off = p->pos;
    ob.n_defs = total;
    size_t outer_stmt = p->stmt_off;
    p->stmt_off = (n_defs ? defs[0].off : ob.off) + 1;
    bool ok;
    bool has_sig = true;
    if (peek(p) == '"') {
        size_t st = ++p->pos;
        while (p->pos < p->len && p->src[p->pos] != '"' && p->src[p->pos] != '\n')
            p->pos++;
        if (p->pos >= p->len || p->src[p->pos] != '"')
            return err_at(p, ob.off, PLUMB_ERR_PARSE, "unterminated string");
        const char *s = p->src + st;
        size_t n = p->pos - st;
        p->pos++;
        if (n == 21 && memcmp(s, "stablehlo.custom_call", 21) == 0) {
            ok = generic_custom_call(p, &ob);
        } else if (n == 21 && memcmp(s, "check.expect_is_close", 21) == 0) {
            ir_op *last;
            lnode *dl;
            if (!is_close_check(p, blk, ob.off, true, total, &last) || !opt_loc(p, &dl))
                return false;
            p->stmt_off = outer_stmt;
            return want_loc(p, &last->dloc, dl);
        } else {
            if (!plumb_op_lookup(s, n, &ob.code))
                return err_at(p, ob.off, PLUMB_ERR_UNSUPPORTED, "unsupported: op '%.*s' is not in plumb's op set",
                              (int)(n > 80 ? 80 : n), s);
            ok = generic(p, &ob);
        }
    } else {
        const char *s;
        size_t n;
        if (!ident(p, &s, &n))
            return expected(p, "an op");
        if ((n == 21 && memcmp(s, "stablehlo.custom_call", 21) == 0) || (n == 11 && memcmp(s, "custom_call", 11) == 0)) {
            ok = custom_call(p, &ob);
        } else if (n == 21 && memcmp(s, "check.expect_is_close", 21) == 0) {
            ir_op *last;
            lnode *dl;
            if (!is_close_check(p, blk, ob.off, false, total, &last) || !opt_loc(p, &dl))
                return false;
            p->stmt_off = outer_stmt;
            return want_loc(p, &last->dloc, dl);
        } else {
            if (!plumb_op_lookup(s, n, &ob.code))
                return err_at(p, ob.off, PLUMB_ERR_UNSUPPORTED, "unsupported: op '%.*s' is not in plumb's op set", (int)(n > 80 ? 80 : n), s);
            if (ob.code == PLUMB_OP_RETURN && !(n == 16 && memcmp(s, "stablehlo.return", 16) == 0))
                ob.code = PLUMB_OP_FUNC_RETURN;
            ok = pretty(p, &ob, &has_sig);
        }
    }
    (void)has_sig;
    lnode *dl;
    ir_op *op, *cst = NULL;
    if (!ok || !opt_loc(p, &dl))
        return false;
    if (ob.check_eq ? !legacy_check_eq(p, &ob, blk, defs, n_defs, &op, &cst) : !finish_op(p, &ob, blk, defs, n_defs, &op))
        return false;
    p->stmt_off = outer_stmt;
    return want_loc(p, &op->dloc, dl) && (!cst || want_loc(p, &cst->dloc, dl));
}

/* ---- functions and the module ---------------------------------------------- */

static bool parse_func(P *p)
{
    ws(p);
    size_t off = p->pos;
    bool is_public = true;
    if (eat_kw(p, "private"))
        is_public = false;
    else if (!eat_kw(p, "public"))
        (void)eat_kw(p, "nested");
    ws(p);
    size_t noff = p->pos;
    const char *s;
    size_t n;
    if (!symbol_ref(p, &s, &n))
        return false;
    char *name = plumb_arena_strndup(p->m->arena, s, n);
    if (!name)
        return nomem(p);
    if (ir_module_find_func(p->m, name))
        return err_at(p, noff, PLUMB_ERR_PARSE, "redefinition of function '@%s'", name);
    ir_func *f = ir_func_new(p->m, name, is_public);
    if (!f)
        return nomem(p);
    f->loc = loc_at(p, off);
    if (!push_scope(p) || !expect(p, '('))
        return false;
    const char **attrs = NULL;
    uint32_t cap_attrs = 0;
    if (!eat(p, ')')) {
        do {
            const char *an;
            size_t al, aoff;
            ir_type t;
            lnode *dl;
            if (!block_arg(p, &f->body, &an, &al, &t, &aoff, &dl))
                return false;
            ir_value *v = ir_block_add_arg(p->m, &f->body, &t);
            if (!v)
                return nomem(p);
            if (!bind_arg(p, an, al, aoff, v))
                return false;
            uint32_t i = f->body.n_args - 1;
            if (!grow_arr(p, (void **)&attrs, i, &cap_attrs, sizeof *attrs))
                return false;
            attrs[i] = NULL;
            if (peek(p) == '{' && !raw_group(p, &attrs[i]))
                return false;
            /* MLIR writes `%a: T {attrs} loc(...)` */
            if (!dl && !opt_loc(p, &dl))
                return false;
            if (!want_arg_loc(p, v, dl))
                return false;
        } while (eat(p, ','));
        if (!expect(p, ')'))
            return false;
    }
    f->arg_attrs = attrs;
    if (eat_arrow(p)) {
        ir_type *rt = NULL;
        const char **rattrs = NULL;
        uint32_t nr = 0, cap = 0, cap2 = 0;
        if (eat(p, '(')) {
            if (!eat(p, ')')) {
                do {
                    if (!grow_arr(p, (void **)&rt, nr, &cap, sizeof *rt) || !grow_arr(p, (void **)&rattrs, nr, &cap2, sizeof *rattrs))
                        return false;
                    rattrs[nr] = NULL;
                    if (!parse_type(p, &rt[nr]))
                        return false;
                    if (peek(p) == '{' && !raw_group(p, &rattrs[nr]))
                        return false;
                    nr++;
                } while (eat(p, ','));
                if (!expect(p, ')'))
                    return false;
            }
        } else {
            if (!grow_arr(p, (void **)&rt, 0, &cap, sizeof *rt) || !parse_type(p, &rt[0]))
                return false;
            nr = 1;
        }
        if (!ir_func_set_results(p->m, f, rt, nr))
            return nomem(p);
        for (uint32_t i = 0; i < nr; i++)
            f->result_attrs[i] = rattrs ? rattrs[i] : NULL;
    }
    if (eat_kw(p, "attributes")) {
        /* function-level attributes carry nothing plumb uses; dropped */
        const char *ignored;
        if (!raw_group(p, &ignored))
            return false;
    }
    ws(p);
    if (p->pos >= p->len || p->src[p->pos] != '{')
        return expected(p, "'{' to open the function body");
    p->pos++;
    if (!enter(p))
        return false;
    if (!parse_ops(p, &f->body) || !expect(p, '}'))
        return false;
    leave(p);
    pop_scope(p);
    lnode *fl;
    return opt_loc(p, &fl) && want_loc(p, &f->dloc, fl);
}

/* ---- the generic form of func.func and builtin.module ------------------------
 * MLIR prints a whole module in the generic form with --mlir-print-op-generic:
 *   "builtin.module"() <{sym_name = "m"}> ({ ... }) {attrs} : () -> ()
 *   "func.func"() <{function_type = (T) -> U, sym_name = "f",
 *                   sym_visibility = "private", arg_attrs = [...],
 *                   res_attrs = [...]}> ({ ^bb0(%a: T): ... }) : () -> ()
 * Both mean exactly what their pretty forms mean. */

/* Consumes `"word"` (the quoted op name of a generic op) when it is next. */
static bool parse_funcs(P *p, bool in_module);

static bool eat_quoted(P *p, const char *word)
{
    ws(p);
    size_t n = strlen(word);
    if (p->pos + n + 2 > p->len || p->src[p->pos] != '"' || memcmp(p->src + p->pos + 1, word, n) != 0 ||
        p->src[p->pos + n + 1] != '"')
        return false;
    p->pos += n + 2;
    return true;
}

/* A string attribute value `"..."` without escapes (symbol names). */
static bool quoted_value(P *p, const char **s, size_t *n)
{
    ws(p);
    size_t st = p->pos;
    if (!expect(p, '"'))
        return false;
    while (p->pos < p->len && p->src[p->pos] != '"' && p->src[p->pos] != '\n')
        p->pos++;
    if (p->pos >= p->len || p->src[p->pos] != '"')
        return err_at(p, st, PLUMB_ERR_PARSE, "unterminated string");
    *s = p->src + st + 1;
    *n = p->pos - st - 1;
    p->pos++;
    return true;
}

/* `[{...}, {...}]`: one raw dictionary per argument or result. */
static bool dict_array(P *p, const char ***out, uint32_t *n_out)
{
    const char **d = NULL;
    uint32_t n = 0, cap = 0;
    if (!expect(p, '['))
        return false;
    if (!eat(p, ']')) {
        do {
            if (!grow_arr(p, (void **)&d, n, &cap, sizeof *d) || !raw_group(p, &d[n]))
                return false;
            n++;
        } while (eat(p, ','));
        if (!expect(p, ']'))
            return false;
    }
    *out = d;
    *n_out = n;
    return true;
}

/* `: () -> ()`, the signature every generic func.func and module carries. */
static bool empty_signature(P *p)
{
    if (!expect(p, ':') || !expect(p, '(') || !expect(p, ')'))
        return false;
    if (!eat_arrow(p))
        return expected(p, "'->'");
    return expect(p, '(') && expect(p, ')');
}

/* Generic-form properties `<{name = value, ...}>` (func.func,
 * builtin.module): `name =` of one, what naming the op in the error. A
 * unit property is its name alone (`no_inline,`: MLIR prints a UnitAttr
 * without `= unit`); *unit says so and there is no value to read. */
static bool prop_name(P *p, const char *what, const char **k, size_t *kn, bool *unit)
{
    if (!ident(p, k, kn))
        return expected(p, what);
    *unit = peek(p) == ',' || peek(p) == '}';
    return *unit || expect(p, '=');
}

static bool prop_is(const char *k, size_t kn, const char *name)
{
    return kn == strlen(name) && memcmp(k, name, kn) == 0;
}

/* A property value plumb does not use (no_inline, ...): skipped whole. */
static bool prop_skip(P *p)
{
    ws(p);
    return skip_balanced(p, "}");
}

/* `T, ...)` or `)` after a '(': the types appended to *arr. */
static bool type_list_rest(P *p, ir_type **arr, uint32_t *n, uint32_t *cap)
{
    if (eat(p, ')'))
        return true;
    do {
        if (!grow_arr(p, (void **)arr, *n, cap, sizeof **arr) || !parse_type(p, &(*arr)[*n]))
            return false;
        (*n)++;
    } while (eat(p, ','));
    return expect(p, ')');
}

static bool parse_generic_func(P *p)
{
    /* called right after the quoted name: the function starts there */
    size_t off = p->pos - strlen("\"func.func\"");
    if (!expect(p, '(') || !expect(p, ')') || !expect(p, '<') || !expect(p, '{'))
        return false;
    const char *name = NULL;
    size_t name_len = 0;
    bool is_public = true, have_type = false;
    ir_type *in = NULL, *rt = NULL;
    uint32_t n_in = 0, n_rt = 0, cap_in = 0, cap_rt = 0, n_aa = 0, n_ra = 0;
    const char **arg_attrs = NULL, **res_attrs = NULL;
    if (!eat(p, '}')) {
        do {
            const char *k;
            size_t kn;
            bool unit;
            if (!prop_name(p, "a func.func property name", &k, &kn, &unit))
                return false;
            if (unit)
                continue;   /* no_inline and the like: nothing plumb uses */
            if (prop_is(k, kn, "sym_name")) {
                if (!quoted_value(p, &name, &name_len))
                    return false;
            } else if (prop_is(k, kn, "sym_visibility")) {
                const char *v;
                size_t vn;
                if (!quoted_value(p, &v, &vn))
                    return false;
                is_public = !prop_is(v, vn, "private");
            } else if (prop_is(k, kn, "function_type")) {
                if (!expect(p, '(') || !type_list_rest(p, &in, &n_in, &cap_in))
                    return false;
                if (!eat_arrow(p))
                    return expected(p, "'->' in function_type");
                if (eat(p, '(')) {
                    if (!type_list_rest(p, &rt, &n_rt, &cap_rt))
                        return false;
                } else {
                    if (!grow_arr(p, (void **)&rt, 0, &cap_rt, sizeof *rt) || !parse_type(p, &rt[0]))
                        return false;
                    n_rt = 1;
                }
                have_type = true;
            } else if (prop_is(k, kn, "arg_attrs")) {
                if (!dict_array(p, &arg_attrs, &n_aa))
                    return false;
            } else if (prop_is(k, kn, "res_attrs")) {
                if (!dict_array(p, &res_attrs, &n_ra))
                    return false;
            } else if (!prop_skip(p)) {
                return false;
            }
        } while (eat(p, ','));
        if (!expect(p, '}'))
            return false;
    }
    if (!expect(p, '>'))
        return false;
    if (!name)
        return err_at(p, off, PLUMB_ERR_PARSE, "generic func.func has no sym_name property");
    if (!have_type)
        return err_at(p, off, PLUMB_ERR_PARSE, "generic func.func '@%.*s' has no function_type property", (int)name_len,
                      name);
    char *fname = plumb_arena_strndup(p->m->arena, name, name_len);
    if (!fname)
        return nomem(p);
    if (ir_module_find_func(p->m, fname))
        return err_at(p, off, PLUMB_ERR_PARSE, "redefinition of function '@%s'", fname);
    ir_func *f = ir_func_new(p->m, fname, is_public);
    if (!f)
        return nomem(p);
    f->loc = loc_at(p, off);
    if (!ir_func_set_results(p->m, f, rt, n_rt))
        return nomem(p);
    if (n_ra && n_ra != n_rt)
        return err_at(p, off, PLUMB_ERR_PARSE, "func.func '@%s' has %u res_attrs for %u results", fname, n_ra, n_rt);
    for (uint32_t i = 0; i < n_rt; i++)
        f->result_attrs[i] = n_ra ? res_attrs[i] : NULL;
    if (n_aa && n_aa != n_in)
        return err_at(p, off, PLUMB_ERR_PARSE, "func.func '@%s' has %u arg_attrs for %u arguments", fname, n_aa, n_in);
    f->arg_attrs = n_aa ? arg_attrs : NULL;
    /* The region's entry block holds the arguments; their types must be
     * function_type's inputs. */
    if (!expect(p, '(') || !expect(p, '{') || !enter(p) || !push_scope(p))
        return false;
    ws(p);
    size_t boff = p->pos;
    if (peek(p) == '^') {
        p->pos++;
        while (p->pos < p->len && is_id_char((unsigned char)p->src[p->pos]))
            p->pos++;
        if (eat(p, '(') && !eat(p, ')')) {
            do {
                const char *an;
                size_t al, aoff;
                ir_type t;
                lnode *dl;
                if (!block_arg(p, &f->body, &an, &al, &t, &aoff, &dl))
                    return false;
                ir_value *v = ir_block_add_arg(p->m, &f->body, &t);
                if (!v)
                    return nomem(p);
                if (!bind_arg(p, an, al, aoff, v) || !want_arg_loc(p, v, dl))
                    return false;
            } while (eat(p, ','));
            if (!expect(p, ')'))
                return false;
        }
        if (!expect(p, ':'))
            return false;
    }
    if (f->body.n_args != n_in)
        return err_at(p, boff, PLUMB_ERR_PARSE, "func.func '@%s': the body's block has %u arguments, function_type %u",
                      fname, f->body.n_args, n_in);
    for (uint32_t i = 0; i < n_in; i++)
        if (!ir_type_equal(&f->body.args[i]->type, &in[i]))
            return err_at(p, boff, PLUMB_ERR_PARSE,
                          "func.func '@%s': block argument %u's type differs from function_type's input %u", fname,
                          i, i);
    if (!parse_ops(p, &f->body) || !expect(p, '}') || !expect(p, ')'))
        return false;
    leave(p);
    pop_scope(p);
    if (peek(p) == '{') {
        const char *ignored;
        if (!raw_group(p, &ignored))
            return false;
    }
    if (!empty_signature(p))
        return false;
    lnode *fl;
    return opt_loc(p, &fl) && want_loc(p, &f->dloc, fl);
}

/* `"builtin.module"() <{sym_name = "m"}> ({ funcs }) {attrs} : () -> ()`,
 * after its quoted name. */
static bool parse_generic_module(P *p)
{
    if (!expect(p, '(') || !expect(p, ')'))
        return false;
    ws(p);
    if (peek(p) == '<') {
        p->pos++;
        if (!expect(p, '{'))
            return false;
        if (!eat(p, '}')) {
            do {
                const char *k;
                size_t kn;
                bool unit;
                if (!prop_name(p, "a builtin.module property name", &k, &kn, &unit))
                    return false;
                if (unit)
                    continue;
                if (prop_is(k, kn, "sym_name")) {
                    const char *s;
                    size_t n;
                    if (!quoted_value(p, &s, &n))
                        return false;
                    if (!(p->m->name = plumb_arena_strndup(p->m->arena, s, n)))
                        return nomem(p);
                } else if (!prop_skip(p)) {
                    return false;
                }
            } while (eat(p, ','));
            if (!expect(p, '}'))
                return false;
        }
        if (!expect(p, '>'))
            return false;
    }
    if (!expect(p, '(') || !expect(p, '{') || !enter(p) || !parse_funcs(p, true) || !expect(p, '}') || !expect(p, ')'))
        return false;
    leave(p);
    if (peek(p) == '{' && !raw_group(p, &p->m->attrs))
        return false;
    return empty_signature(p);
}

static bool parse_funcs(P *p, bool in_module)
{
    for (;;) {
        int c = peek(p);
        if (c == 0) {
            if (in_module)
                return err_at(p, p->pos, PLUMB_ERR_PARSE, "expected '}', found end of input (unterminated module)");
            return true;
        }
        if (in_module && c == '}')
            return true;
        if (!in_module && c == '#') {
            if (!alias_def(p))
                return false;
            continue;
        }
        if (!in_module && at_meta_block(p)) {
            if (!skip_meta_block(p))
                return false;
            continue;
        }
        if (eat_kw(p, "func.func") || eat_kw(p, "func")) {
            if (!parse_func(p))
                return false;
            continue;
        }
        if (eat_quoted(p, "func.func")) {
            if (!parse_generic_func(p))
                return false;
            continue;
        }
        return expected(p, in_module ? "'func.func' or '}'" : "'func.func'");
    }
}

/* NUL bytes and malformed UTF-8 are rejected before parsing, with the
 * location of the first bad byte. */
static bool check_text(P *p)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t i = 0;
    while (i < p->len) {
        unsigned c = s[i];
        if (c == 0)
            return err_at(p, i, PLUMB_ERR_PARSE, "NUL byte in input");
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) {
            need = 1;
            cp = c & 0x1F;
            min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            need = 2;
            cp = c & 0x0F;
            min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            need = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return err_at(p, i, PLUMB_ERR_PARSE, "invalid UTF-8 byte 0x%02X", c);
        }
        for (size_t k = 1; k <= need; k++) {
            if (i + k >= p->len || (s[i + k] & 0xC0) != 0x80)
                return err_at(p, i, PLUMB_ERR_PARSE, "invalid UTF-8: bad continuation after byte 0x%02X", c);
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return err_at(p, i, PLUMB_ERR_PARSE, "invalid UTF-8 sequence starting with byte 0x%02X", c);
        i += need + 1;
    }
    return true;
}

/* What MLIR prints after a module: location aliases, then the file
 * metadata block of resources. */
static bool trailing_defs(P *p)
{
    for (;;) {
        if (peek(p) == '#') {
            if (!alias_def(p))
                return false;
        } else if (at_meta_block(p)) {
            if (!skip_meta_block(p))
                return false;
        } else {
            return true;
        }
    }
}

static bool parse_top(P *p)
{
    if (!check_text(p))
        return false;
    /* A UTF-8 byte-order mark (editors on Windows write one) is not part of
     * the program; columns on line 1 still count its three bytes. */
    if (p->len >= 3 && memcmp(p->src, "\xEF\xBB\xBF", 3) == 0)
        p->pos = 3;
    while (peek(p) == '#')
        if (!alias_def(p))
            return false;
    if (eat_kw(p, "module") || eat_kw(p, "builtin.module")) {
        ws(p);
        if (peek(p) == '@') {
            const char *s;
            size_t n;
            if (!symbol_ref(p, &s, &n))
                return false;
            if (!(p->m->name = plumb_arena_strndup(p->m->arena, s, n)))
                return nomem(p);
        }
        if (eat_kw(p, "attributes") && !raw_group(p, &p->m->attrs))
            return false;
        if (!expect(p, '{') || !enter(p) || !parse_funcs(p, true) || !expect(p, '}'))
            return false;
        leave(p);
        lnode *ml;
        if (!opt_loc(p, &ml) || !want_loc(p, &p->m->dloc, ml))
            return false;
        if (!trailing_defs(p))
            return false;
        if (!at_end(p)) {
            /* MLIR wraps several top-level modules in an implicit one, and
             * StableHLO's interpreter tests separate them with `// -----`;
             * plumb reads one module per file or per split chunk. */
            size_t at = p->pos;
            if (eat_kw(p, "module") || eat_kw(p, "builtin.module"))
                return err_at(p, at, PLUMB_ERR_UNSUPPORTED,
                              "unsupported: a second top-level module; plumb reads one module per file "
                              "(separate them with a '// -----' line and run with --split-input-file)");
            return expected(p, "end of input after the module");
        }
    } else if (eat_quoted(p, "builtin.module")) {
        lnode *ml;
        if (!parse_generic_module(p) || !opt_loc(p, &ml) || !want_loc(p, &p->m->dloc, ml))
            return false;
        /* MLIR prints location aliases after the module */
        if (!trailing_defs(p))
            return false;
        if (!at_end(p))
            return expected(p, "end of input after the module");
    } else if (!parse_funcs(p, false)) {
        return false;
    }
    if (!resolve_locs(p))
        return false;
    for (uint32_t i = 0; i < p->n_calls; i++) {
        const char *callee = p->calls[i].op->a.callee;
        if (!callee || !ir_module_find_func(p->m, callee)) {
            char origin[700];
            ir_debug_loc_describe(origin, sizeof origin, &p->calls[i].op->dloc);
            return err_at(p, p->calls[i].off, PLUMB_ERR_PARSE, "call to undefined function '@%s'%s", callee ? callee : "",
                          origin);
        }
    }
    return true;
}

ir_module *ir_parse(const char *text, size_t len, const char *filename,
                    const ir_parse_options *opts, plumb_diag *d)
{
    plumb_diag local;
    if (!d) {
        memset(&local, 0, sizeof local);
        d = &local;
    }
    d->file = filename;
    P p;
    memset(&p, 0, sizeof p);
    p.src = text ? text : "";
    p.len = text ? len : 0;
    p.loc_line = p.loc_col = 1;
    p.d = d;
    p.max_depth = 64;
    /* Fields are read only when the caller's struct holds them, so code
     * built against an older, shorter ir_parse_options keeps working. */
    if (opts && opts->struct_size >= offsetof(ir_parse_options, max_depth) + sizeof opts->max_depth &&
        opts->max_depth)
        p.max_depth = opts->max_depth;
    if (opts && opts->struct_size >= offsetof(ir_parse_options, max_bytes) + sizeof opts->max_bytes)
        p.max_bytes = opts->max_bytes;
    p.m = ir_module_new(NULL);
    if (!p.m) {
        plumb_loc none = {0, 0};
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory");
        return NULL;
    }
    if (filename && !(p.m->filename = plumb_arena_strdup(p.m->arena, filename)))
        nomem(&p);
    bool ok = !p.failed && parse_top(&p);
    plumb_free(p.syms, (size_t)p.cap_syms * sizeof *p.syms);
    plumb_free(p.buckets, (size_t)p.n_buckets * sizeof *p.buckets);
    plumb_free(p.scopes, (size_t)p.cap_scopes * sizeof *p.scopes);
    plumb_free(p.calls, (size_t)p.cap_calls * sizeof *p.calls);
    plumb_free(p.blobs, (size_t)p.cap_blobs * sizeof *p.blobs);
    if (!ok && p.stmt_off && d->code != PLUMB_OK && d->code != PLUMB_ERR_NOMEM) {
        char origin[700];
        stmt_origin(&p, p.stmt_off - 1, origin, sizeof origin);
        size_t n = strlen(d->msg);
        if (origin[0] && n < sizeof d->msg - 1)
            snprintf(d->msg + n, sizeof d->msg - n, "%s", origin);
    }
    if (!ok) {
        if (d->code == PLUMB_OK) {
            plumb_loc none = {0, 0};
            plumb_diag_set(d, PLUMB_ERR_PARSE, none, "parse failed");
        }
        ir_module_free(p.m);
        return NULL;
    }
    return p.m;
}
