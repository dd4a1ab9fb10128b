/* The golden file format and the manifest (include/plumb/golden.h,
 * docs/golden.md): reading, validating and naming. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/golden.h"
#include "golden_internal.h"

uint32_t plumb_golden_crc32(const void *data, size_t len)
{
    /* Bitwise CRC-32 (IEEE): slow but tiny, and the files are small; the
     * reader in docs/golden.md is the same loop. */
    const uint8_t *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static const char *kind_word(plumb_golden_kind k)
{
    return k == PLUMB_GOLDEN_SUM ? "sum" : k == PLUMB_GOLDEN_DOT ? "dot" : "elementwise";
}

void plumb_golden_file_name(const plumb_golden_spec *s, char *buf, size_t cap)
{
    const char *dash = s->attr[0] ? "-" : "";
    /* a CHLO op whose short name a StableHLO op has too (chlo.tan) is
     * prefixed, or the two would write one file */
    char full[64];
    plumb_opcode other;
    const char *sn = plumb_op_short_name(s->op), *pre = "";
    snprintf(full, sizeof full, "stablehlo.%s", sn);
    if (!strncmp(plumb_op_name(s->op), "chlo.", 5) && plumb_op_lookup(full, strlen(full), &other) && other != s->op)
        pre = "chlo_";
    if (s->kind == PLUMB_GOLDEN_ELEMENTWISE)
        snprintf(buf, cap, "%s%s-%s%s%s.gold", pre, sn, plumb_dtype_name(s->dtype), dash, s->attr);
    else
        snprintf(buf, cap, "%s%s-%s-n%u%s%s.gold", pre, sn, plumb_dtype_name(s->dtype), s->length, dash, s->attr);
}

uint32_t plumb_golden_spec_crc(uint64_t seed, const plumb_golden_spec *s)
{
    /* an entry without an attribute keeps the text it always had, so
     * adding attributes left every earlier file as it was */
    char text[200];
    int n = snprintf(text, sizeof text, "plumb-golden v%u seed %llu %s %s %s %u%s%s", PLUMB_GOLDEN_VERSION,
                     (unsigned long long)seed, plumb_op_name(s->op), plumb_dtype_name(s->dtype), kind_word(s->kind),
                     s->length, s->attr[0] ? " " : "", s->attr);
    return plumb_golden_crc32(text, (size_t)n);
}

bool golden_op_supported(plumb_opcode op, plumb_golden_kind *kind)
{
    switch (op) {
    case PLUMB_OP_REDUCE: *kind = PLUMB_GOLDEN_SUM; return true;
    case PLUMB_OP_DOT_GENERAL: case PLUMB_OP_DOT: *kind = PLUMB_GOLDEN_DOT; return true;
    default: break;
    }
    *kind = PLUMB_GOLDEN_ELEMENTWISE;
    return golden_ew_arity(op) > 0;
}

static const char *const cmp_dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

bool golden_attr_ok(plumb_opcode op, plumb_dtype t, const char *attr, char *why, size_t cap)
{
    switch (op) {
    case PLUMB_OP_COMPARE:
        for (int i = 0; i < 6; i++) {
            size_t n = strlen(cmp_dirs[i]);
            if (!strncmp(attr, cmp_dirs[i], n) && (!attr[n] || !strcmp(attr + n, "_TOTALORDER"))) return true;
        }
        snprintf(why, cap, "compare entries are 'OP TYPE DIR' with DIR EQ, NE, LT, LE, GT or GE, "
                 "optionally followed by _TOTALORDER");
        return false;
    case PLUMB_OP_CONVERT: {
        plumb_dtype u;
        if (plumb_dtype_parse(attr, strlen(attr), &u) && golden_format_known(u) && u != t) return true;
        snprintf(why, cap, "convert entries are 'OP TYPE TARGET' with TARGET another of f16, bf16, f32, f64");
        return false;
    }
    case PLUMB_OP_REDUCE_PRECISION: {
        int e = 0, m = 0, used = 0;
        if (sscanf(attr, "e%dm%d%n", &e, &m, &used) == 2 && !attr[used] && e >= 1 && e <= 11 && m >= 0 &&
            m <= 52 && attr[1] != '+' && attr[1] != '-')
            return true;
        snprintf(why, cap, "reduce_precision entries are 'OP TYPE eEmM' (exponent bits E 1..11, mantissa bits M 0..52)");
        return false;
    }
    case PLUMB_OP_REDUCE:
        if (!attr[0] || !strcmp(attr, "maximum") || !strcmp(attr, "minimum")) return true;
        snprintf(why, cap, "reduce entries are 'OP TYPE LENGTH [maximum|minimum]' (no body word: add)");
        return false;
    case PLUMB_OP_DOT_GENERAL:
        if (!attr[0] || !strcmp(attr, "contract0") || !strcmp(attr, "nobatch")) return true;
        snprintf(why, cap, "dot_general entries are 'OP TYPE LENGTH [contract0|nobatch]'");
        return false;
    default:
        if (!attr[0]) return true;
        snprintf(why, cap, "%s takes no attribute", plumb_op_name(op));
        return false;
    }
}

plumb_dtype golden_in_dtype(plumb_opcode op, plumb_dtype t, uint32_t k)
{
    return op == PLUMB_OP_SELECT && k == 0 ? PLUMB_I1 : t;
}

plumb_dtype golden_out_dtype(plumb_opcode op, plumb_dtype t, const char *attr)
{
    plumb_dtype u;
    if (op == PLUMB_OP_COMPARE || op == PLUMB_OP_IS_FINITE || op == PLUMB_OP_IS_INF || op == PLUMB_OP_IS_POS_INF ||
        op == PLUMB_OP_IS_NEG_INF)
        return PLUMB_I1;
    if (op == PLUMB_OP_CONVERT && plumb_dtype_parse(attr, strlen(attr), &u)) return u;
    return t;
}

uint32_t golden_elem_bytes(plumb_opcode op, plumb_dtype t, const char *attr)
{
    uint32_t a = plumb_dtype_get(t)->bits, b = plumb_dtype_get(golden_out_dtype(op, t, attr))->bits;
    return (a > b ? a : b) / 8;
}

bool golden_sum_exact(const char *attr) { return !strcmp(attr, "maximum") || !strcmp(attr, "minimum"); }

/* ---- manifest --------------------------------------------------------------- */

static bool mf_error(plumb_diag *d, const char *path, uint32_t line, const char *fmt, const char *arg)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg);
    plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){line, 0}, "%s:%u: %s", path, line, msg);
    return false;
}

bool plumb_golden_manifest_load(const char *path, plumb_golden_manifest *m, plumb_diag *d)
{
    memset(m, 0, sizeof *m);
    size_t len = 0;
    char *text = plumb_read_file(path, 1u << 20, &len, d);
    if (!text) return false;
    m->crc = plumb_golden_crc32(text, len);
    bool ok = false, have_magic = false, have_seed = false;
    uint32_t cap = 0, line = 0;
    for (char *ln = text, *next; ln < text + len; ln = next) {
        char *nl = memchr(ln, '\n', (size_t)(text + len - ln));
        next = nl ? nl + 1 : text + len;
        if (nl) *nl = '\0';
        line++;
        char *hash = strchr(ln, '#');
        if (hash) *hash = '\0';
        char w[5][48];
        int n = sscanf(ln, "%47s %47s %47s %47s %47s", w[0], w[1], w[2], w[3], w[4]);
        if (n <= 0) continue;
        if (!have_magic) {
            if (n != 2 || strcmp(w[0], "plumb-golden-manifest") || strcmp(w[1], "1")) {
                mf_error(d, path, line, "expected 'plumb-golden-manifest 1' first%s", "");
                goto out;
            }
            have_magic = true;
            continue;
        }
        if (!strcmp(w[0], "seed")) {
            char *end;
            errno = 0;
            unsigned long long s = n == 2 ? strtoull(w[1], &end, 10) : 0;
            if (n != 2 || errno || *end) { mf_error(d, path, line, "bad seed line%s", ""); goto out; }
            m->seed = s;
            have_seed = true;
            continue;
        }
        plumb_golden_spec s = {0};
        s.line = line;
        if (!plumb_op_lookup(w[0], strlen(w[0]), &s.op)) { mf_error(d, path, line, "unknown op '%s'", w[0]); goto out; }
        if (!golden_op_supported(s.op, &s.kind)) {
            mf_error(d, path, line, "op '%s' has no goldens (float elementwise ops, reduce and dot_general)", w[0]);
            goto out;
        }
        if (n < 2 || !plumb_dtype_parse(w[1], strlen(w[1]), &s.dtype) || !plumb_dtype_is_float(s.dtype) ||
            plumb_dtype_get(s.dtype)->bits > 64 || !golden_format_known(s.dtype)) {
            mf_error(d, path, line, "element type '%s' is not f16, bf16, f32 or f64", n < 2 ? "" : w[1]);
            goto out;
        }
        const char *attr = "";
        if (s.kind == PLUMB_GOLDEN_ELEMENTWISE) {
            if (n > 3) { mf_error(d, path, line, "elementwise entries are 'OP TYPE [ATTRIBUTE]'%s", ""); goto out; }
            if (n == 3) attr = w[2];
        } else {
            char *end;
            unsigned long v = n >= 3 ? strtoul(w[2], &end, 10) : 0;
            if (n < 3 || n > 4 || *end || v < 1 || v > GOLDEN_MAX_LENGTH) {
                mf_error(d, path, line, "sum and dot entries are 'OP TYPE LENGTH [ATTRIBUTE]' with LENGTH 1..256%s", "");
                goto out;
            }
            s.length = (uint32_t)v;
            if (n == 4) attr = w[3];
        }
        char why[200];
        if (strlen(attr) >= PLUMB_GOLDEN_ATTR_MAX || !golden_attr_ok(s.op, s.dtype, attr, why, sizeof why)) {
            if (strlen(attr) >= PLUMB_GOLDEN_ATTR_MAX) snprintf(why, sizeof why, "attribute '%.40s' is too long", attr);
            mf_error(d, path, line, "%s", why);
            goto out;
        }
        memcpy(s.attr, attr, strlen(attr) + 1);     /* shorter than PLUMB_GOLDEN_ATTR_MAX: checked above */
        if (m->n == cap) {
            uint32_t nc = cap ? cap * 2 : 64;
            plumb_golden_spec *nv = plumb_calloc(nc, sizeof *nv);
            if (!nv) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
            if (m->v) {
                memcpy(nv, m->v, m->n * sizeof *nv);
                plumb_free(m->v, cap * sizeof *nv);
            }
            m->v = nv;
            cap = nc;
        }
        for (uint32_t i = 0; i < m->n; i++)
            if (m->v[i].op == s.op && m->v[i].dtype == s.dtype && m->v[i].length == s.length &&
                !strcmp(m->v[i].attr, s.attr)) {
                mf_error(d, path, line, "entry repeated (first on an earlier line)%s", "");
                goto out;
            }
        m->v[m->n++] = s;
    }
    if (!have_magic) { mf_error(d, path, line, "empty manifest%s", ""); goto out; }
    if (!have_seed) { mf_error(d, path, line, "no 'seed N' line%s", ""); goto out; }
    /* The array's capacity is forgotten from here on: shrink-wrap it. */
    if (m->n && m->n != cap) {
        plumb_golden_spec *nv = plumb_calloc(m->n, sizeof *nv);
        if (!nv) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
        memcpy(nv, m->v, m->n * sizeof *nv);
        plumb_free(m->v, cap * sizeof *nv);
        m->v = nv;
    }
    cap = m->n;
    ok = true;
out:
    plumb_free(text, len + 1);
    if (!ok) {
        if (m->v) plumb_free(m->v, cap * sizeof *m->v);
        m->v = NULL;
        m->n = 0;
    }
    return ok;
}

void plumb_golden_manifest_free(plumb_golden_manifest *m)
{
    if (m->v) plumb_free(m->v, m->n * sizeof *m->v);
    memset(m, 0, sizeof *m);
}

/* ---- files --------------------------------------------------------------------- */

uint32_t golden_rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

void golden_wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t plumb_golden_elem(const plumb_golden_file *f, uint32_t r, uint32_t j)
{
    const uint8_t *p = f->data + PLUMB_GOLDEN_HEADER_SIZE +
                       ((size_t)r * (f->n_in + f->n_out) + j) * f->elem_bytes;
    uint64_t v = 0;
    for (uint32_t i = 0; i < f->elem_bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool bad(plumb_diag *d, const char *path, const char *why)
{
    plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "%s: %s", path, why);
    return false;
}

bool plumb_golden_load(const char *path, const plumb_golden_spec *spec, uint64_t seed, plumb_golden_file *f,
                       plumb_diag *d)
{
    memset(f, 0, sizeof *f);
    size_t len = 0;
    uint8_t *p = (uint8_t *)plumb_read_file(path, 64u << 20, &len, d);
    if (!p) return false;
    char why[200];
    const uint32_t H = PLUMB_GOLDEN_HEADER_SIZE;
    if (len < 12 || memcmp(p, PLUMB_GOLDEN_MAGIC, 8)) { bad(d, path, "not a plumb golden file (bad magic)"); goto fail; }
    uint32_t version = golden_rd32(p + 8);
    if (version != PLUMB_GOLDEN_VERSION) {
        snprintf(why, sizeof why, "format version %u, this plumb reads version %u", version, PLUMB_GOLDEN_VERSION);
        bad(d, path, why);
        goto fail;
    }
    if (len < H) {
        snprintf(why, sizeof why, "truncated: %zu bytes, shorter than the %u-byte header", len, H);
        bad(d, path, why);
        goto fail;
    }
    if (golden_rd32(p + 12) != H) { bad(d, path, "header size is not 96"); goto fail; }
    if (golden_rd32(p + 92) != plumb_golden_crc32(p, 92)) { bad(d, path, "corrupted: header checksum mismatch"); goto fail; }
    memcpy(f->op_name, p + 16, PLUMB_GOLDEN_OP_NAME_MAX);
    /* "OP ATTRIBUTE": the name ends at the space */
    char *sp = strchr(f->op_name, ' ');
    if (sp) {
        snprintf(f->attr, sizeof f->attr, "%s", sp + 1);
        *sp = '\0';
    }
    memcpy(f->dtype_name, p + 56, PLUMB_GOLDEN_DTYPE_NAME_MAX);
    f->kind = (plumb_golden_kind)golden_rd32(p + 64);
    f->n_in = golden_rd32(p + 68);
    f->n_out = golden_rd32(p + 72);
    f->elem_bytes = golden_rd32(p + 76);
    f->count = golden_rd32(p + 80);
    f->spec_crc = golden_rd32(p + 84);
    plumb_golden_kind want_kind;
    if (!plumb_op_lookup(f->op_name, strlen(f->op_name), &f->op) || !golden_op_supported(f->op, &want_kind) ||
        want_kind != f->kind) {
        snprintf(why, sizeof why, "op '%s' (kind %u) has no goldens", f->op_name, (unsigned)f->kind);
        bad(d, path, why);
        goto fail;
    }
    if (!plumb_dtype_parse(f->dtype_name, strlen(f->dtype_name), &f->dtype) || !golden_format_known(f->dtype)) {
        snprintf(why, sizeof why, "element type '%s' is not a golden type", f->dtype_name);
        bad(d, path, why);
        goto fail;
    }
    char awhy[120];
    if (!golden_attr_ok(f->op, f->dtype, f->attr, awhy, sizeof awhy)) {
        snprintf(why, sizeof why, "op '%s' with attribute '%.15s': %.120s", f->op_name, f->attr, awhy);
        bad(d, path, why);
        goto fail;
    }
    f->out_dtype = golden_out_dtype(f->op, f->dtype, f->attr);
    if (golden_elem_bytes(f->op, f->dtype, f->attr) != f->elem_bytes) {
        snprintf(why, sizeof why, "element type '%s' with %u-byte elements is not a golden type", f->dtype_name,
                 f->elem_bytes);
        bad(d, path, why);
        goto fail;
    }
    uint32_t want_out = f->kind == PLUMB_GOLDEN_ELEMENTWISE ? 1 : 2;
    if (f->n_out != want_out || f->n_in == 0 || f->n_in > 2 * GOLDEN_MAX_LENGTH ||
        (f->kind == PLUMB_GOLDEN_ELEMENTWISE && f->n_in != golden_ew_arity(f->op))) {
        snprintf(why, sizeof why, "%u inputs and %u outputs per record do not fit %s", f->n_in, f->n_out, f->op_name);
        bad(d, path, why);
        goto fail;
    }
    uint64_t want = (uint64_t)H + (uint64_t)f->count * (f->n_in + f->n_out) * f->elem_bytes;
    if (len != want) {
        snprintf(why, sizeof why, "%s: %zu bytes, the header's %u records need %llu", len < want ? "truncated" : "trailing bytes",
                 len, f->count, (unsigned long long)want);
        bad(d, path, why);
        goto fail;
    }
    if (golden_rd32(p + 88) != plumb_golden_crc32(p + H, len - H)) {
        bad(d, path, "corrupted: payload checksum mismatch");
        goto fail;
    }
    if (spec) {
        plumb_golden_kind k;
        (void)golden_op_supported(f->op, &k);
        if (f->op != spec->op || f->dtype != spec->dtype || strcmp(f->attr, spec->attr) ||
            (k != PLUMB_GOLDEN_ELEMENTWISE && f->n_in != (k == PLUMB_GOLDEN_DOT ? 2 : 1) * spec->length)) {
            snprintf(why, sizeof why, "holds %s%s%s %s with %u inputs per record, the manifest's line %u names another entry",
                     f->op_name, f->attr[0] ? " " : "", f->attr, f->dtype_name, f->n_in, spec->line);
            bad(d, path, why);
            goto fail;
        }
        if (f->spec_crc != plumb_golden_spec_crc(seed, spec)) {
            snprintf(why, sizeof why, "stale: generated from another manifest entry or seed than line %u "
                     "(spec checksum %08x, manifest %08x); run 'make golden'", spec->line, f->spec_crc,
                     plumb_golden_spec_crc(seed, spec));
            bad(d, path, why);
            goto fail;
        }
    }
    f->data = p;
    f->size = len;
    return true;
fail:
    plumb_free(p, len + 1);
    return false;
}

void plumb_golden_file_free(plumb_golden_file *f)
{
    if (f->data) plumb_free(f->data, f->size + 1);
    memset(f, 0, sizeof *f);
}
