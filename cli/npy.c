/* NumPy's .npy format: magic "\x93NUMPY", major and minor version, the
 * header length (u16 for 1.0, u32 for 2.0 and 3.0, little-endian), then a
 * Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
 * (2, 3), } padded with blanks to a multiple of 64 bytes and ended by '\n',
 * then the elements. */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static bool npy_err(plumb_diag *d, plumb_code code, const char *name, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    plumb_diag_set(d, code, (plumb_loc){0, 0}, ".npy file '%s': %s", name, msg);
    return false;
}

static bool host_le(void)
{
    uint16_t x = 1;
    unsigned char c;
    memcpy(&c, &x, 1);
    return c == 1;
}

/* The dtype a descr names: its kind letter and size; *swap when its byte
 * order is not the host's. */
static bool npy_dtype(const char *descr, plumb_dtype *dt, bool *swap)
{
    static const struct { const char *s; plumb_dtype dt; } map[] = {
        {"b1", PLUMB_I1}, {"i1", PLUMB_I8}, {"i2", PLUMB_I16}, {"i4", PLUMB_I32}, {"i8", PLUMB_I64},
        {"u1", PLUMB_UI8}, {"u2", PLUMB_UI16}, {"u4", PLUMB_UI32}, {"u8", PLUMB_UI64},
        {"f2", PLUMB_F16}, {"f4", PLUMB_F32}, {"f8", PLUMB_F64},
        {"c8", PLUMB_C64}, {"c16", PLUMB_C128},
    };
    char order = descr[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return false;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(descr + 1, map[i].s) != 0)
            continue;
        size_t sz = plumb_dtype_size(map[i].dt);
        if (order == '|' && sz != 1)
            return false;
        *dt = map[i].dt;
        *swap = sz > 1 && ((order == '<' && !host_le()) || (order == '>' && host_le()));
        return true;
    }
    return false;
}

/* The value after 'key': in the header dict, or NULL. */
static const char *npy_key(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

plumb_tensor *cli_npy_load_mem(const unsigned char *buf, size_t len, const char *name, uint64_t max_bytes,
                               plumb_diag *d)
{
    if (len < 10) {
        npy_err(d, PLUMB_ERR_PARSE, name, "truncated: %zu bytes, the header alone takes at least 10", len);
        return NULL;
    }
    if (memcmp(buf, npy_magic, 6) != 0) {
        npy_err(d, PLUMB_ERR_PARSE, name, "not a NumPy file (bad magic at byte 0; expected \"\\x93NUMPY\")");
        return NULL;
    }
    unsigned major = buf[6], minor = buf[7];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) {
            npy_err(d, PLUMB_ERR_PARSE, name, "truncated: %zu bytes, a version %u header takes at least 12", len,
                    major);
            return NULL;
        }
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        npy_err(d, PLUMB_ERR_UNSUPPORTED, name, "unsupported format version %u.%u (plumb reads 1.0, 2.0 and 3.0)",
                major, minor);
        return NULL;
    }
    if (hlen > len - hstart) {
        npy_err(d, PLUMB_ERR_PARSE, name, "truncated header: it says %zu bytes, the file has %zu after byte %zu",
                hlen, len - hstart, hstart);
        return NULL;
    }
    char *h = malloc(hlen + 1);
    plumb_tensor *t = NULL;
    if (!h) {
        npy_err(d, PLUMB_ERR_NOMEM, name, "out of memory reading the header");
        return NULL;
    }
    memcpy(h, buf + hstart, hlen);
    h[hlen] = 0;

    const char *v = npy_key(h, "descr");
    char descr[16];
    size_t k = 0;
    if (!v || (*v != '\'' && *v != '"')) {
        npy_err(d, PLUMB_ERR_PARSE, name, "header has no 'descr' string: %.200s", h);
        goto out;
    }
    char q = *v++;
    while (v[k] && v[k] != q && k < sizeof descr - 1) {
        descr[k] = v[k];
        k++;
    }
    descr[k] = 0;
    if (v[k] != q) {
        npy_err(d, PLUMB_ERR_PARSE, name, "header's 'descr' is not a dtype string: %.200s", h);
        goto out;
    }
    plumb_dtype dt;
    bool swap;
    if (!npy_dtype(descr, &dt, &swap)) {
        npy_err(d, PLUMB_ERR_UNSUPPORTED, name, "unsupported dtype '%s' (plumb reads b1, i1, i2, i4, i8, u1, u2, "
                "u4, u8, f2, f4, f8, c8 and c16)", descr);
        goto out;
    }
    v = npy_key(h, "fortran_order");
    if (!v || (strncmp(v, "False", 5) != 0 && strncmp(v, "True", 4) != 0)) {
        npy_err(d, PLUMB_ERR_PARSE, name, "header has no 'fortran_order' True or False: %.200s", h);
        goto out;
    }
    if (v[0] == 'T') {
        npy_err(d, PLUMB_ERR_UNSUPPORTED, name, "Fortran order (column-major) is not supported: save the array "
                "in C order (numpy.ascontiguousarray)");
        goto out;
    }
    v = npy_key(h, "shape");
    if (!v || *v != '(') {
        npy_err(d, PLUMB_ERR_PARSE, name, "header has no 'shape' tuple: %.200s", h);
        goto out;
    }
    int64_t dims[PLUMB_MAX_RANK];
    uint32_t rank = 0;
    for (v++;;) {
        while (*v == ' ' || *v == ',')
            v++;
        if (*v == ')')
            break;
        if (*v < '0' || *v > '9') {
            npy_err(d, PLUMB_ERR_PARSE, name, "header's 'shape' is not a tuple of sizes: %.200s", h);
            goto out;
        }
        errno = 0;
        char *e;
        unsigned long long n = strtoull(v, &e, 10);
        if (errno || n > INT64_MAX) {
            npy_err(d, PLUMB_ERR_PARSE, name, "a size of 'shape' is too large: %.200s", h);
            goto out;
        }
        if (rank == PLUMB_MAX_RANK) {
            npy_err(d, PLUMB_ERR_UNSUPPORTED, name, "rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
            goto out;
        }
        dims[rank++] = (int64_t)n;
        v = e;
        if (*v == 'L')   /* Python 2 wrote 3L */
            v++;
    }
    plumb_diag sd = {.code = PLUMB_OK};
    if (!(t = plumb_tensor_new(dt, rank, dims, max_bytes, &sd))) {
        npy_err(d, sd.code, name, "%s", sd.msg);
        goto out;
    }
    size_t have = len - hstart - hlen;
    if (have < t->nbytes) {
        char shape[PLUMB_MAX_RANK * 22 + 4];
        int n = snprintf(shape, sizeof shape, "(");
        for (uint32_t i = 0; i < rank; i++)
            n += snprintf(shape + n, sizeof shape - (size_t)n, i ? ", %lld" : "%lld", (long long)dims[i]);
        snprintf(shape + n, sizeof shape - (size_t)n, rank == 1 ? ",)" : ")");
        npy_err(d, PLUMB_ERR_PARSE, name, "truncated payload: %zu bytes, the shape %s of '%s' needs %zu", have,
                shape, descr, t->nbytes);
        plumb_tensor_free(t);
        t = NULL;
        goto out;
    }
    if (have > t->nbytes) {
        npy_err(d, PLUMB_ERR_PARSE, name, "%zu bytes after the payload of %zu bytes", have - t->nbytes, t->nbytes);
        plumb_tensor_free(t);
        t = NULL;
        goto out;
    }
    const unsigned char *src = buf + hstart + hlen;
    /* byte order is per component for complex (NumPy's c8/c16) */
    size_t sz = plumb_dtype_size(plumb_dtype_component(dt));
    unsigned char *dst = t->data;
    for (size_t i = 0; i < t->nbytes; i += sz)
        for (size_t b = 0; b < sz; b++)
            dst[i + b] = src[i + (swap ? sz - 1 - b : b)];
    if (dt == PLUMB_I1) {
        for (size_t i = 0; i < t->nbytes; i++) {
            if (dst[i] > 1) {
                npy_err(d, PLUMB_ERR_PARSE, name, "element %zu of a b1 array is %u, not 0 or 1", i, dst[i]);
                plumb_tensor_free(t);
                t = NULL;
                goto out;
            }
        }
    }
out:
    free(h);
    return t;
}

plumb_tensor *cli_npy_load(const char *path, uint64_t max_bytes, plumb_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        npy_err(d, PLUMB_ERR_IO, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    /* the header (at most 4 GiB by its length field, in practice small)
     * and a payload within the byte limit */
    uint64_t cap = plumb_max_bytes(max_bytes) + (1u << 20);
    size_t len = 0, size = 1 << 16;
    unsigned char *buf = malloc(size);
    plumb_tensor *t = NULL;
    while (buf) {
        size_t got = fread(buf + len, 1, size - len, f);
        len += got;
        if (got == 0)
            break;
        if (len == size) {
            if (size >= cap) {
                npy_err(d, PLUMB_ERR_LIMIT, path, "larger than the byte limit %llu", (unsigned long long)cap);
                goto out;
            }
            unsigned char *nb = realloc(buf, size * 2);
            if (!nb)
                break;
            buf = nb;
            size *= 2;
        }
    }
    if (!buf) {
        npy_err(d, PLUMB_ERR_NOMEM, path, "out of memory reading it");
        goto out;
    }
    if (ferror(f)) {
        npy_err(d, PLUMB_ERR_IO, path, "read error: %s", strerror(errno));
        goto out;
    }
    t = cli_npy_load_mem(buf, len, path, max_bytes, d);
out:
    free(buf);
    fclose(f);
    return t;
}

bool cli_npy_save(const char *path, const plumb_tensor *t, plumb_diag *d)
{
    static const char *const descr[PLUMB_DTYPE_COUNT] = {
        [PLUMB_I1] = "|b1", [PLUMB_I8] = "|i1", [PLUMB_I16] = "<i2", [PLUMB_I32] = "<i4", [PLUMB_I64] = "<i8",
        [PLUMB_UI8] = "|u1", [PLUMB_UI16] = "<u2", [PLUMB_UI32] = "<u4", [PLUMB_UI64] = "<u8",
        [PLUMB_F16] = "<f2", [PLUMB_F32] = "<f4", [PLUMB_F64] = "<f8",
        [PLUMB_C64] = "<c8", [PLUMB_C128] = "<c16",
    };
    if (!descr[t->dtype])
        return npy_err(d, PLUMB_ERR_UNSUPPORTED, path, "%s has no NumPy dtype", plumb_dtype_name(t->dtype));
    char h[1024];
    int n = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr[t->dtype]);
    for (uint32_t i = 0; i < t->rank; i++)
        n += snprintf(h + n, sizeof h - (size_t)n, "%lld%s", (long long)t->dims[i],
                      t->rank == 1 || i + 1 < t->rank ? ", " : "");
    n += snprintf(h + n, sizeof h - (size_t)n, "), }");
    /* magic, version, u16 length, dict, blanks, '\n': a multiple of 64 */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    memset(h + n, ' ', hlen - (size_t)n - 1);
    h[hlen - 1] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    /* the elements in little-endian order; a copy only on a big-endian host */
    size_t sz = plumb_dtype_size(plumb_dtype_component(t->dtype));   /* per component for complex */
    unsigned char *swapped = NULL;
    const void *payload = t->data;
    if (sz > 1 && !host_le() && t->nbytes) {
        if (!(swapped = malloc(t->nbytes)))
            return npy_err(d, PLUMB_ERR_NOMEM, path, "out of memory writing it");
        const unsigned char *src = t->data;
        for (size_t i = 0; i < t->nbytes; i += sz)
            for (size_t b = 0; b < sz; b++)
                swapped[i + b] = src[i + sz - 1 - b];
        payload = swapped;
    }
    /* written as tensor files are: atomically, never through a link */
    const void *parts[3] = {pre, h, payload};
    size_t lens[3] = {sizeof pre, hlen, t->nbytes};
    bool ok = plumb_write_file_atomic(path, parts, lens, t->nbytes ? 3 : 2, d);
    free(swapped);
    if (!ok)
        return false;
    return true;
}
