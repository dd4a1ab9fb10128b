/* Tensor files: a checksummed binary form and a text form in the IR's literal
 * syntax. docs/tensor-files.md describes both.
 *
 * Binary layout (every integer little-endian):
 *   0        8 bytes   magic "PLUMBTNS"
 *   8        u32       version (1)
 *   12       u32       element type (row index of ir/dtypes.def)
 *   16       u32       rank (<= PLUMB_MAX_RANK)
 *   20       u32       reserved, 0
 *   24       u64[rank] dimensions
 *   24+8r    u64       payload bytes
 *   32+8r    payload   row-major elements, little-endian (i1: one byte, 0/1)
 *   end-8    u64       XXH3-64 (seed 0) of every byte before it
 *
 * Every field is validated before anything is allocated from it, and each
 * error names the file, the field and its byte offset. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "plumb/tensor.h"

#define TNS_MAGIC "PLUMBTNS"
#define TNS_VERSION 1u
#define TNS_FIXED 24u          /* magic, version, dtype, rank, reserved */
/* Bytes a header can take before the payload: fixed part, dims, size field. */
#define TNS_MAX_HEADER (TNS_FIXED + 8u * PLUMB_MAX_RANK + 8u)

static const plumb_loc no_loc = {0, 0};

static bool host_is_le(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Copies n elements of dtype t between host order and little-endian order
 * (the same operation both ways). */
static void copy_le(plumb_dtype t, void *dst, const void *src, size_t nbytes)
{
    size_t es = plumb_dtype_size(plumb_dtype_component(t));   /* complex: per component */
    if (host_is_le() || es == 1) {
        memcpy(dst, src, nbytes);
        return;
    }
    const unsigned char *s = src;
    unsigned char *o = dst;
    for (size_t i = 0; i < nbytes; i += es)
        for (size_t j = 0; j < es; j++)
            o[i + j] = s[i + es - 1 - j];
}

/* ---- binary ----------------------------------------------------------------- */

typedef struct tns_header {
    plumb_dtype dtype;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];
    uint64_t nbytes;       /* payload bytes */
    uint64_t payload_at;   /* byte offset of the payload */
    uint64_t total;        /* bytes of the whole file */
} tns_header;

__attribute__((format(printf, 4, 5)))
static bool file_err(plumb_diag *d, plumb_code code, const char *name, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    plumb_diag_set(d, code, no_loc, "tensor file '%s': %s", name, msg);
    return false;
}

/* Validates the header in buf[0..len). With whole=false, len may hold only a
 * prefix of the file; the header is checked as far as it goes and h->total
 * says how long the file must be. */
static bool parse_header(const unsigned char *buf, size_t len, bool whole, const char *name,
                         uint64_t max_bytes, tns_header *h, plumb_diag *d)
{
    if (len < 8 || memcmp(buf, TNS_MAGIC, 8) != 0)
        return file_err(d, PLUMB_ERR_PARSE, name, "bad magic at byte 0 (expected \"%s\")", TNS_MAGIC);
    if (len < TNS_FIXED)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "truncated: %zu bytes, the header alone takes %u", len, TNS_FIXED);
    uint32_t version = rd32(buf + 8);
    if (version != TNS_VERSION)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "unknown version %u at byte 8 (this build reads version %u)", version, TNS_VERSION);
    uint32_t dtype = rd32(buf + 12);
    if (dtype >= PLUMB_DTYPE_COUNT)
        return file_err(d, PLUMB_ERR_PARSE, name, "unknown element type %u at byte 12", dtype);
    uint32_t rank = rd32(buf + 16);
    if (rank > PLUMB_MAX_RANK)
        return file_err(d, PLUMB_ERR_PARSE, name, "rank %u at byte 16 exceeds the maximum rank %d",
                        rank, PLUMB_MAX_RANK);
    uint32_t reserved = rd32(buf + 20);
    if (reserved != 0)
        return file_err(d, PLUMB_ERR_PARSE, name, "reserved field at byte 20 is %u, must be 0", reserved);
    size_t size_at = TNS_FIXED + 8u * rank;
    if (len < size_at + 8)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "truncated: %zu bytes, the header of a rank-%u tensor takes %zu",
                        len, rank, size_at + 8);
    h->dtype = (plumb_dtype)dtype;
    h->rank = rank;
    for (uint32_t i = 0; i < rank; i++) {
        uint64_t v = rd64(buf + TNS_FIXED + 8 * i);
        if (v > (uint64_t)INT64_MAX)
            return file_err(d, PLUMB_ERR_PARSE, name,
                            "dimension %u at byte %u is %llu, which is negative as a signed size",
                            i, TNS_FIXED + 8 * i, (unsigned long long)v);
        h->dims[i] = (int64_t)v;
    }
    uint64_t nbytes;
    plumb_diag sd = {0};
    if (!plumb_shape_size(h->dtype, rank, h->dims, max_bytes, NULL, &nbytes, &sd))
        return file_err(d, sd.code, name, "shape at byte %u: %s", TNS_FIXED, sd.msg);
    uint64_t stored = rd64(buf + size_at);
    if (stored != nbytes)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "payload size at byte %zu is %llu, but the %s shape needs %llu bytes",
                        size_at, (unsigned long long)stored, plumb_dtype_name(h->dtype),
                        (unsigned long long)nbytes);
    h->nbytes = nbytes;
    h->payload_at = size_at + 8;
    h->total = h->payload_at + nbytes + 8;   /* nbytes <= the limit: no overflow */
    if (!whole)
        return true;
    if (len < h->total)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "truncated: %zu bytes, expected %llu (payload at byte %llu, checksum at byte %llu)",
                        len, (unsigned long long)h->total, (unsigned long long)h->payload_at,
                        (unsigned long long)(h->total - 8));
    if (len > h->total)
        return file_err(d, PLUMB_ERR_PARSE, name, "%llu trailing bytes after the checksum at byte %llu",
                        (unsigned long long)(len - h->total), (unsigned long long)(h->total - 8));
    uint64_t want = rd64(buf + h->total - 8);
    uint64_t got = XXH3_64bits(buf, (size_t)h->total - 8);
    if (want != got)
        return file_err(d, PLUMB_ERR_PARSE, name,
                        "checksum mismatch at byte %llu: stored %016llx, computed %016llx (the file is corrupted)",
                        (unsigned long long)(h->total - 8), (unsigned long long)want,
                        (unsigned long long)got);
    return true;
}

static plumb_tensor *load_binary(const unsigned char *buf, size_t len, const char *name,
                                 uint64_t max_bytes, plumb_diag *d)
{
    tns_header h;
    if (!parse_header(buf, len, true, name, max_bytes, &h, d))
        return NULL;
    plumb_tensor *t = plumb_tensor_new(h.dtype, h.rank, h.dims, max_bytes, d);
    if (!t)
        return NULL;
    if (h.nbytes)
        copy_le(h.dtype, t->data, buf + h.payload_at, (size_t)h.nbytes);
    if (h.dtype == PLUMB_I1) {
        const unsigned char *p = t->data;
        for (size_t i = 0; i < t->nbytes; i++) {
            if (p[i] > 1) {
                file_err(d, PLUMB_ERR_PARSE, name, "i1 element %zu at byte %llu is %u, must be 0 or 1",
                         i, (unsigned long long)(h.payload_at + i), p[i]);
                plumb_tensor_free(t);
                return NULL;
            }
        }
    }
    uint32_t w = plumb_dtype_get(h.dtype)->bits;
    if (h.dtype != PLUMB_I1 && w < 8) {
        /* The FP6/FP4 formats and sub-byte integers: one byte per element,
         * the pattern in the low bits and the rest zero. */
        const unsigned char *p = t->data;
        for (size_t i = 0; i < t->nbytes; i++) {
            if (p[i] >> w) {
                file_err(d, PLUMB_ERR_PARSE, name, "%s element %zu at byte %llu is 0x%02X, which does not fit its %u bits",
                         plumb_dtype_name(h.dtype), i, (unsigned long long)(h.payload_at + i), p[i], w);
                plumb_tensor_free(t);
                return NULL;
            }
        }
    }
    return t;
}

static bool check_tensor(const plumb_tensor *t, plumb_diag *d)
{
    uint64_t nbytes;
    plumb_diag sd = {0};
    if ((unsigned)t->dtype >= PLUMB_DTYPE_COUNT || t->rank > PLUMB_MAX_RANK ||
        !plumb_shape_size(t->dtype, t->rank, t->dims, UINT64_MAX, NULL, &nbytes, &sd) ||
        nbytes != t->nbytes || (nbytes && !t->data)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, no_loc,
                       "tensor to save is malformed (type, shape and byte size disagree)");
        return false;
    }
    return true;
}

void *plumb_tensor_serialize(const plumb_tensor *t, size_t *len, plumb_diag *d)
{
    if (!check_tensor(t, d))
        return NULL;
    size_t head = TNS_FIXED + 8u * t->rank + 8u;
    if (t->nbytes > SIZE_MAX - head - 8) {
        plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc, "tensor of %zu bytes is too large to serialize", t->nbytes);
        return NULL;
    }
    size_t total = head + t->nbytes + 8;
    unsigned char *p = plumb_malloc(total);
    if (!p) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, no_loc, "out of memory serializing %zu bytes", total);
        return NULL;
    }
    memcpy(p, TNS_MAGIC, 8);
    wr32(p + 8, TNS_VERSION);
    wr32(p + 12, (uint32_t)t->dtype);
    wr32(p + 16, t->rank);
    wr32(p + 20, 0);
    for (uint32_t i = 0; i < t->rank; i++)
        wr64(p + TNS_FIXED + 8 * i, (uint64_t)t->dims[i]);
    wr64(p + head - 8, t->nbytes);
    if (t->nbytes)
        copy_le(t->dtype, p + head, t->data, t->nbytes);
    wr64(p + head + t->nbytes, XXH3_64bits(p, head + t->nbytes));
    *len = total;
    return p;
}

/* ---- text ------------------------------------------------------------------- */

typedef struct txt {
    const char *s;
    size_t len, pos;
    uint32_t line, col;
    const char *name;
    plumb_diag *d;
} txt;

static void tx_adv(txt *x)
{
    if (x->s[x->pos] == '\n') {
        x->line++;
        x->col = 1;
    } else {
        x->col++;
    }
    x->pos++;
}

/* Skips blanks and "//" comments to the end of their line. */
static void tx_skip(txt *x)
{
    while (x->pos < x->len) {
        char c = x->s[x->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            tx_adv(x);
        } else if (c == '/' && x->pos + 1 < x->len && x->s[x->pos + 1] == '/') {
            while (x->pos < x->len && x->s[x->pos] != '\n')
                tx_adv(x);
        } else {
            break;
        }
    }
}

__attribute__((format(printf, 2, 3)))
static bool tx_err(txt *x, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    plumb_loc l = {x->line, x->col};
    plumb_diag_set(x->d, PLUMB_ERR_PARSE, l, "tensor file '%s': %s", x->name, msg);
    return false;
}

static bool tx_lit(txt *x, const char *word)
{
    size_t n = strlen(word);
    if (x->len - x->pos < n || memcmp(x->s + x->pos, word, n) != 0)
        return tx_err(x, "expected '%s'", word);
    for (size_t i = 0; i < n; i++)
        tx_adv(x);
    return true;
}

/* tensor<DxDx...xTYPE> with static dimensions only. */
static bool tx_type(txt *x, plumb_dtype *dt, uint32_t *rank, int64_t *dims)
{
    if (!tx_lit(x, "tensor<"))
        return false;
    *rank = 0;
    for (;;) {
        size_t p = x->pos;
        if (p < x->len && x->s[p] >= '0' && x->s[p] <= '9') {
            uint64_t v = 0;
            while (x->pos < x->len && x->s[x->pos] >= '0' && x->s[x->pos] <= '9') {
                uint64_t dv = (uint64_t)(x->s[x->pos] - '0');
                if (v > ((uint64_t)INT64_MAX - dv) / 10)
                    return tx_err(x, "dimension %u is too large", *rank);
                v = v * 10 + dv;
                tx_adv(x);
            }
            if (x->pos >= x->len || x->s[x->pos] != 'x')
                return tx_err(x, "expected 'x' after dimension %u", *rank);
            tx_adv(x);
            if (*rank >= PLUMB_MAX_RANK)
                return tx_err(x, "rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
            dims[(*rank)++] = (int64_t)v;
            continue;
        }
        if (p < x->len && x->s[p] == '?')
            return tx_err(x, "dynamic dimension '?' in a tensor file: every dimension must be static");
        size_t n = 0;
        while (p + n < x->len && ((x->s[p + n] >= 'a' && x->s[p + n] <= 'z') ||
                                  (x->s[p + n] >= 'A' && x->s[p + n] <= 'Z') ||   /* f8E4M3FN */
                                  (x->s[p + n] >= '0' && x->s[p + n] <= '9')))
            n++;
        /* complex<f32>: the spelling runs through its closing '>' */
        if (n == 7 && memcmp(x->s + p, "complex", 7) == 0 && p + n < x->len && x->s[p + n] == '<') {
            size_t e = p + n + 1;
            while (e < x->len && x->s[e] >= 'a' && x->s[e] <= 'z')
                e++;
            while (e < x->len && x->s[e] >= '0' && x->s[e] <= '9')
                e++;
            if (e < x->len && x->s[e] == '>')
                n = e + 1 - p;
        }
        if (!plumb_dtype_parse(x->s + p, n, dt)) {
            if (n == 0)
                return tx_err(x, "expected a dimension or an element type");
            plumb_loc l = {x->line, x->col};
            plumb_diag_set(x->d, PLUMB_ERR_UNSUPPORTED, l, "tensor file '%s': unsupported element type '%.*s'",
                           x->name, (int)(n > 40 ? 40 : n), x->s + p);
            return false;
        }
        for (size_t i = 0; i < n; i++)
            tx_adv(x);
        return tx_lit(x, ">");
    }
}

static plumb_tensor *load_text(const char *s, size_t len, const char *name, uint64_t max_bytes,
                               plumb_diag *d)
{
    txt x = {s, len, 0, 1, 1, name, d};
    tx_skip(&x);
    if (!tx_lit(&x, "dense<"))
        return NULL;
    size_t body = x.pos;
    plumb_loc body_loc = {x.line, x.col};
    /* The body ends at the first '>' outside a quoted raw string. */
    bool quoted = false;
    while (x.pos < x.len && (quoted || x.s[x.pos] != '>')) {
        if (x.s[x.pos] == '"')
            quoted = !quoted;
        tx_adv(&x);
    }
    if (x.pos >= x.len) {
        tx_err(&x, "missing the '>' that closes dense<");
        return NULL;
    }
    size_t body_len = x.pos - body;
    tx_adv(&x);
    tx_skip(&x);
    if (!tx_lit(&x, ":"))
        return NULL;
    tx_skip(&x);
    plumb_dtype dt;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];
    if (!tx_type(&x, &dt, &rank, dims))
        return NULL;
    tx_skip(&x);
    if (x.pos < x.len) {
        tx_err(&x, "unexpected text after the tensor type");
        return NULL;
    }
    plumb_diag sd = {0};
    plumb_tensor *t = plumb_tensor_new(dt, rank, dims, max_bytes, &sd);
    if (!t) {
        plumb_diag_set(d, sd.code, body_loc, "tensor file '%s': %s", name, sd.msg);
        return NULL;
    }
    if (!plumb_dense_decode(s + body, body_len, body_loc, t, &sd)) {
        plumb_diag_set(d, sd.code, sd.loc, "tensor file '%s': %s", name, sd.msg);
        plumb_tensor_free(t);
        return NULL;
    }
    return t;
}

/* ---- loading and saving ----------------------------------------------------- */

plumb_tensor *plumb_tensor_load_mem(const void *buf, size_t len, const char *name,
                                    uint64_t max_bytes, plumb_diag *d)
{
    const unsigned char *p = buf;
    if (!name)
        name = "<memory>";
    if (len >= 8 && memcmp(p, TNS_MAGIC, 8) == 0)
        return load_binary(p, len, name, max_bytes, d);
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i < len && (p[i] == 'd' || p[i] == '/'))
        return load_text(buf, len, name, max_bytes, d);
    if (len < 8 && len > 0 && memcmp(p, TNS_MAGIC, len) == 0)
        file_err(d, PLUMB_ERR_PARSE, name, "truncated: %zu bytes, the magic alone takes 8", len);
    else
        file_err(d, PLUMB_ERR_PARSE, name,
                 "bad magic at byte 0: neither a binary tensor file (\"%s\") nor a text one (dense<...>)",
                 TNS_MAGIC);
    return NULL;
}

/* Reads f to its end into one buffer that starts with the len bytes of
 * head, stopping with a PLUMB_ERR_LIMIT error as soon as the total would pass
 * cap. NUL-terminated; free with plumb_free(p, *out_len + 1). */
static char *read_rest(FILE *f, const unsigned char *head, size_t len, size_t cap, const char *name,
                       size_t *out_len, plumb_diag *d)
{
    if (len > cap) {
        plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc, "tensor file '%s' is larger than the limit of %zu bytes",
                       name, cap);
        return NULL;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_append(&b, (const char *)head, len);
    char chunk[65536];
    for (;;) {
        /* Ask for one byte past the cap at most, so an oversized input is
         * noticed without reading (or buffering) more of it. */
        size_t want = sizeof chunk;
        if (cap - b.len < want)
            want = cap - b.len + 1;
        size_t n = fread(chunk, 1, want, f);
        if (n == 0)
            break;
        if (n > cap - b.len) {
            plumb_buf_free(&b);
            plumb_diag_set(d, PLUMB_ERR_LIMIT, no_loc, "tensor file '%s' is larger than the limit of %zu bytes",
                           name, cap);
            return NULL;
        }
        plumb_buf_append(&b, chunk, n);
        if (b.failed)
            break;
    }
    if (ferror(f)) {
        plumb_buf_free(&b);
        plumb_diag_set(d, PLUMB_ERR_IO, no_loc, "cannot read tensor file '%s': %s", name, strerror(errno));
        return NULL;
    }
    char *p = plumb_buf_take(&b, out_len);
    if (!p)
        plumb_diag_set(d, PLUMB_ERR_NOMEM, no_loc, "out of memory reading tensor file '%s'", name);
    return p;
}

plumb_tensor *plumb_tensor_load(const char *path, uint64_t max_bytes, plumb_diag *d)
{
    /* The input is opened and read exactly once, so pipes, FIFOs, process
     * substitution, /dev/stdin and "-" (standard input) work like files:
     * the header is read first so that an oversized binary file is rejected
     * before its payload is read, then the rest, bounded by a cap. */
    bool use_stdin = strcmp(path, "-") == 0;
    const char *name = use_stdin ? "<stdin>" : path;
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        plumb_diag_set(d, PLUMB_ERR_IO, no_loc, "cannot open tensor file '%s': %s", path, strerror(errno));
        return NULL;
    }
    plumb_tensor *t = NULL;
    unsigned char head[TNS_MAX_HEADER];
    size_t n = fread(head, 1, sizeof head, f);
    if (n < sizeof head && ferror(f)) {
        plumb_diag_set(d, PLUMB_ERR_IO, no_loc, "cannot read tensor file '%s': %s", name, strerror(errno));
        goto out_close;
    }
    bool binary = n >= 8 && memcmp(head, TNS_MAGIC, 8) == 0;
    size_t cap;
    if (binary) {
        tns_header h;
        if (!parse_header(head, n, false, name, max_bytes, &h, d))
            goto out_close;
        cap = (size_t)h.total;
    } else {
        /* Neither magic nor the start of a text file (dense< or a comment)
         * in the first bytes: refuse now (the same error as from memory)
         * rather than read an endless stream such as /dev/zero. */
        size_t i = 0;
        while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
            i++;
        if (i < n && head[i] != 'd' && head[i] != '/') {
            t = plumb_tensor_load_mem(head, n, name, max_bytes, d);
            goto out_close;
        }
        /* Text spends at most a few dozen characters per element byte; the cap
         * keeps a runaway file from being slurped whole. */
        uint64_t lim = plumb_max_bytes(max_bytes);
        cap = lim > (SIZE_MAX - 65536) / 64 ? SIZE_MAX - 1 : (size_t)(lim * 64 + 65536);
    }
    size_t len;
    plumb_diag rd = {0};
    char *buf = read_rest(f, head, n, cap, name, &len, &rd);
    if (!buf) {
        if (rd.code == PLUMB_ERR_LIMIT && binary)
            file_err(d, PLUMB_ERR_PARSE, name, "trailing bytes after the checksum");
        else
            plumb_diag_set(d, rd.code, no_loc, "%s", rd.msg);
        goto out_close;
    }
    t = plumb_tensor_load_mem(buf, len, name, max_bytes, d);
    plumb_free(buf, len + 1);
out_close:
    if (!use_stdin)
        fclose(f);
    return t;
}

bool plumb_tensor_save(const char *path, const plumb_tensor *t, bool text, plumb_diag *d)
{
    if (!check_tensor(t, d))
        return false;
    void *data;
    size_t len;
    plumb_buf b;
    plumb_buf_init(&b);
    if (text) {
        plumb_dense_print(&b, t, false);
        plumb_buf_puts(&b, " : ");
        plumb_tensor_type_print(&b, t);
        plumb_buf_puts(&b, "\n");
        if (b.failed) {
            plumb_buf_free(&b);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, no_loc, "out of memory formatting tensor file '%s'", path);
            return false;
        }
        data = b.data;
        len = b.len;
    } else {
        data = plumb_tensor_serialize(t, &len, d);
        if (!data)
            return false;
    }
    /* Readers see the old file or the new one, never a torn one, and a
     * failed save leaves the old file untouched. */
    const void *parts[1] = {data};
    bool ok = plumb_write_file_atomic(path, parts, &len, 1, d);
    if (text)
        plumb_buf_free(&b);
    else
        plumb_free(data, len);
    return ok;
}
