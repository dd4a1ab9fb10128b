/* The strict JSON reader of conformance/json.h. A recursive-descent parser
 * over the whole text; values live in one arena. Strictness is the point:
 * a report that was cut short or edited by hand must be rejected with the
 * place of the problem, not half-read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

typedef struct jp {
    const char *s, *end, *p;
    const char *file;
    plumb_arena *arena;
    plumb_diag *d;
    uint32_t line;
    const char *line_start;
} jp;

static plumb_loc here(const jp *j)
{
    return (plumb_loc){j->line, (uint32_t)(j->p - j->line_start) + 1};
}

static bool fail(jp *j, const char *what)
{
    plumb_diag_set(j->d, PLUMB_ERR_PARSE, here(j), "%s", what);
    j->d->file = j->file;
    return false;
}

static void skip_ws(jp *j)
{
    while (j->p < j->end) {
        char c = *j->p;
        if (c == '\n') {
            j->line++;
            j->line_start = j->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        j->p++;
    }
}

static bool parse_value(jp *j, conf_json *v, int depth);

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(jp *j, uint32_t *out)
{
    if (j->end - j->p < 4)
        return fail(j, "truncated \\u escape");
    uint32_t u = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(j->p[k]);
        if (h < 0)
            return fail(j, "bad \\u escape (four hex digits expected)");
        u = u * 16 + (uint32_t)h;
    }
    j->p += 4;
    *out = u;
    return true;
}

/* Parses a string at j->p (on the opening quote) into the arena. */
static bool parse_string(jp *j, const char **out)
{
    j->p++;
    plumb_buf b;
    plumb_buf_init(&b);
    for (;;) {
        if (j->p >= j->end) {
            plumb_buf_free(&b);
            return fail(j, "truncated: the file ends inside a string");
        }
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20) {
            plumb_buf_free(&b);
            return fail(j, c == '\n' ? "unterminated string (newline inside it)" : "control character in a string");
        }
        if (c != '\\') {
            plumb_buf_append(&b, (const char *)j->p, 1);
            j->p++;
            continue;
        }
        j->p++;
        if (j->p >= j->end) {
            plumb_buf_free(&b);
            return fail(j, "truncated: the file ends inside a string escape");
        }
        char e = *j->p++;
        char one = 0;
        switch (e) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            uint32_t u;
            if (!read_hex4(j, &u)) {
                plumb_buf_free(&b);
                return false;
            }
            if (u >= 0xD800 && u <= 0xDBFF) {
                uint32_t lo;
                if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') {
                    plumb_buf_free(&b);
                    return fail(j, "unpaired surrogate in \\u escape");
                }
                j->p += 2;
                if (!read_hex4(j, &lo)) {
                    plumb_buf_free(&b);
                    return false;
                }
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    plumb_buf_free(&b);
                    return fail(j, "unpaired surrogate in \\u escape");
                }
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                plumb_buf_free(&b);
                return fail(j, "unpaired surrogate in \\u escape");
            }
            if (u == 0) {
                plumb_buf_free(&b);
                return fail(j, "\\u0000 in a string is not accepted");
            }
            char enc[4];
            size_t n;
            if (u < 0x80) {
                enc[0] = (char)u;
                n = 1;
            } else if (u < 0x800) {
                enc[0] = (char)(0xC0 | (u >> 6));
                enc[1] = (char)(0x80 | (u & 0x3F));
                n = 2;
            } else if (u < 0x10000) {
                enc[0] = (char)(0xE0 | (u >> 12));
                enc[1] = (char)(0x80 | ((u >> 6) & 0x3F));
                enc[2] = (char)(0x80 | (u & 0x3F));
                n = 3;
            } else {
                enc[0] = (char)(0xF0 | (u >> 18));
                enc[1] = (char)(0x80 | ((u >> 12) & 0x3F));
                enc[2] = (char)(0x80 | ((u >> 6) & 0x3F));
                enc[3] = (char)(0x80 | (u & 0x3F));
                n = 4;
            }
            plumb_buf_append(&b, enc, n);
            continue;
        }
        default:
            plumb_buf_free(&b);
            j->p--;
            return fail(j, "unknown escape in a string");
        }
        plumb_buf_append(&b, &one, 1);
    }
    if (b.failed) {
        plumb_buf_free(&b);
        return fail(j, "out of memory");
    }
    *out = plumb_arena_strndup(j->arena, b.data ? b.data : "", b.len);
    plumb_buf_free(&b);
    if (!*out)
        return fail(j, "out of memory");
    return true;
}

static bool parse_number(jp *j, conf_json *v)
{
    const char *q = j->p;
    if (q < j->end && *q == '-')
        q++;
    if (q >= j->end || !(*q >= '0' && *q <= '9'))
        return fail(j, "bad number");
    if (*q == '0' && q + 1 < j->end && q[1] >= '0' && q[1] <= '9')
        return fail(j, "bad number (leading zero)");
    while (q < j->end && *q >= '0' && *q <= '9')
        q++;
    if (q < j->end && *q == '.') {
        q++;
        if (q >= j->end || !(*q >= '0' && *q <= '9'))
            return fail(j, "bad number (digits expected after '.')");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < j->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= j->end || !(*q >= '0' && *q <= '9'))
            return fail(j, "bad number (digits expected in the exponent)");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    size_t n = (size_t)(q - j->p);
    char tmp[64];
    if (n >= sizeof tmp)
        return fail(j, "number too long");
    memcpy(tmp, j->p, n);
    tmp[n] = 0;
    v->type = CONF_JSON_NUMBER;
    v->number = strtod(tmp, NULL);
    v->raw = plumb_arena_strdup(j->arena, tmp);
    if (!v->raw)
        return fail(j, "out of memory");
    if (!isfinite(v->number))
        return fail(j, "number out of range");
    j->p = q;
    return true;
}

static bool literal(jp *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return fail(j, "unexpected character (a value was expected)");
    j->p += n;
    return true;
}

/* A growable list of values (and keys) while an array or object is read. */
typedef struct jlist {
    conf_json *v;
    const char **k;
    uint32_t n, cap;
} jlist;

static bool jlist_push(jlist *l, const conf_json *v, const char *key)
{
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? 2 * l->cap : 8;
        conf_json *nv = plumb_realloc(l->v, (size_t)l->cap * sizeof *nv, (size_t)nc * sizeof *nv);
        if (!nv)
            return false;
        l->v = nv;
        const char **nk = plumb_realloc(l->k, (size_t)l->cap * sizeof *nk, (size_t)nc * sizeof *nk);
        if (!nk)
            return false;
        l->k = nk;
        l->cap = nc;
    }
    l->v[l->n] = *v;
    l->k[l->n] = key;
    l->n++;
    return true;
}

static void jlist_free(jlist *l)
{
    plumb_free(l->v, (size_t)l->cap * sizeof *l->v);
    plumb_free(l->k, (size_t)l->cap * sizeof *l->k);
}

/* Moves the list into the arena as v's items (and keys). */
static bool jlist_finish(jp *j, jlist *l, conf_json *v, bool object)
{
    v->n = l->n;
    if (l->n) {
        v->items = plumb_arena_array(j->arena, l->n, sizeof *v->items);
        if (!v->items)
            return fail(j, "out of memory");
        memcpy(v->items, l->v, (size_t)l->n * sizeof *v->items);
        if (object) {
            v->keys = plumb_arena_array(j->arena, l->n, sizeof *v->keys);
            if (!v->keys)
                return fail(j, "out of memory");
            memcpy(v->keys, l->k, (size_t)l->n * sizeof *v->keys);
        }
    }
    return true;
}

static bool parse_container(jp *j, conf_json *v, int depth, bool object)
{
    if (depth >= CONF_JSON_MAX_DEPTH)
        return fail(j, "nested too deeply");
    char close = object ? '}' : ']';
    v->type = object ? CONF_JSON_OBJECT : CONF_JSON_ARRAY;
    j->p++;
    jlist l = {0};
    bool ok = false;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        ok = true;
        goto out;
    }
    for (;;) {
        const char *key = NULL;
        skip_ws(j);
        if (object) {
            if (j->p >= j->end) {
                fail(j, "truncated: the file ends inside an object");
                goto out;
            }
            if (*j->p != '"') {
                fail(j, "a member name (string) was expected");
                goto out;
            }
            plumb_loc kl = here(j);
            if (!parse_string(j, &key))
                goto out;
            for (uint32_t i = 0; i < l.n; i++) {
                if (strcmp(l.k[i], key) == 0) {
                    plumb_diag_set(j->d, PLUMB_ERR_PARSE, kl, "duplicate member \"%s\"", key);
                    j->d->file = j->file;
                    goto out;
                }
            }
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                fail(j, j->p >= j->end ? "truncated: the file ends inside an object" : "':' expected");
                goto out;
            }
            j->p++;
        }
        conf_json item;
        if (!parse_value(j, &item, depth + 1))
            goto out;
        if (!jlist_push(&l, &item, key)) {
            fail(j, "out of memory");
            goto out;
        }
        skip_ws(j);
        if (j->p >= j->end) {
            fail(j, object ? "truncated: the file ends inside an object" : "truncated: the file ends inside an array");
            goto out;
        }
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == close) {
            j->p++;
            break;
        }
        fail(j, object ? "',' or '}' expected" : "',' or ']' expected");
        goto out;
    }
    ok = jlist_finish(j, &l, v, object);
out:
    jlist_free(&l);
    return ok;
}

static bool parse_value(jp *j, conf_json *v, int depth)
{
    memset(v, 0, sizeof *v);
    skip_ws(j);
    v->loc = here(j);
    if (j->p >= j->end)
        return fail(j, "truncated: a value was expected at the end of the file");
    switch (*j->p) {
    case '{': return parse_container(j, v, depth, true);
    case '[': return parse_container(j, v, depth, false);
    case '"':
        v->type = CONF_JSON_STRING;
        return parse_string(j, &v->string);
    case 't':
        v->type = CONF_JSON_BOOL;
        v->boolean = true;
        return literal(j, "true");
    case 'f':
        v->type = CONF_JSON_BOOL;
        return literal(j, "false");
    case 'n':
        v->type = CONF_JSON_NULL;
        return literal(j, "null");
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
            return parse_number(j, v);
        return fail(j, "unexpected character (a value was expected)");
    }
}

bool conf_json_parse(const char *text, size_t len, const char *file, conf_json_doc *doc, plumb_diag *d)
{
    memset(doc, 0, sizeof *doc);
    doc->file = file;
    doc->arena = plumb_arena_new(0);
    if (!doc->arena) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "%s: out of memory", file);
        return false;
    }
    jp j = {text, text + len, text, file, doc->arena, d, 1, text};
    if (len == 0) {
        plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "%s: empty file (truncated?)", file);
        goto out_fail;
    }
    if (memchr(text, 0, len)) {
        plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "%s: NUL byte in the file (not JSON text)", file);
        goto out_fail;
    }
    doc->root = plumb_arena_alloc(doc->arena, sizeof *doc->root);
    if (!doc->root) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "%s: out of memory", file);
        goto out_fail;
    }
    if (!parse_value(&j, doc->root, 0))
        goto out_fail;
    skip_ws(&j);
    if (j.p != j.end) {
        fail(&j, "trailing characters after the JSON value");
        goto out_fail;
    }
    return true;
out_fail:
    conf_json_free(doc);
    return false;
}

bool conf_json_load(const char *path, size_t max_bytes, conf_json_doc *doc, plumb_diag *d)
{
    size_t len = 0;
    if (!max_bytes)
        max_bytes = (size_t)256 << 20;
    char *text = plumb_read_file(path, max_bytes, &len, d);
    if (!text) {
        memset(doc, 0, sizeof *doc);
        return false;
    }
    bool ok = conf_json_parse(text, len, path, doc, d);
    plumb_free(text, len + 1);
    return ok;
}

void conf_json_free(conf_json_doc *doc)
{
    if (doc->arena)
        plumb_arena_free(doc->arena);
    doc->arena = NULL;
    doc->root = NULL;
}

const conf_json *conf_json_get(const conf_json *v, const char *key)
{
    if (!v || v->type != CONF_JSON_OBJECT)
        return NULL;
    for (uint32_t i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}
