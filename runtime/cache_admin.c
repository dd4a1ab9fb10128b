/* Reading the disk cache's entries without serving them: the listing,
 * verification and removal behind `plumb cache` (docs/runtime.md,
 * "Managing the disk cache").
 *
 * The checks are the ones rt_disk_load applies before it serves an entry,
 * minus the comparison with a program being looked up (there is none here):
 * magic, format version, build identity, the key in the header against the
 * key in the file name, sizes, and the mac keyed with this build's secret.
 * The header layout and mac are cache.c's (format 2); tests/runtime/
 * test_cache_admin.c writes entries through rt_disk_store and checks that
 * they read back valid here, so the two cannot drift apart unnoticed.
 *
 * The directory is opened with the runtime's trust rule and every entry is
 * opened or removed relative to that descriptor, without following links:
 * only regular files named like entries are ever read or removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "rt_cache_admin.h"
#include "rt_pipeline.h"

/* cache.c's on-disk header, format 2 (see the layout comment there). */
#define ADMIN_DISK_VERSION 2u
#define ADMIN_DISK_MAX_BYTES ((uint64_t)1 << 32)

typedef struct admin_header {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;
    char runtime[32];
    uint32_t isa;
    uint32_t opt_level;
    uint64_t key[2];
    uint64_t canon_bytes;
    uint64_t text_bytes;
    uint64_t mac[2];
} admin_header;

_Static_assert(sizeof(admin_header) == 104, "disk header has no padding");

const char *rt_cache_state_name(rt_cache_state s)
{
    switch (s) {
    case RT_CACHE_VALID: return "valid";
    case RT_CACHE_STALE: return "stale";
    case RT_CACHE_FOREIGN: return "foreign";
    case RT_CACHE_CORRUPT: return "corrupt";
    }
    return "?";
}

const char *rt_cache_default_dir(void)
{
    const char *d = getenv("PLUMB_CACHE_DIR");
    return d && *d ? d : NULL;
}

/* 32 lowercase hex digits + ".plumbc", as cache.c names entries. */
static bool is_entry_name(const char *n)
{
    if (strlen(n) != 32 + 7 || strcmp(n + 32, ".plumbc") != 0)
        return false;
    for (int i = 0; i < 32; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return false;
    return true;
}

static void name_key(const char *n, uint64_t key[2])
{
    char half[17];
    memcpy(half, n, 16);
    half[16] = 0;
    key[0] = strtoull(half, NULL, 16);
    memcpy(half, n + 16, 16);
    key[1] = strtoull(half, NULL, 16);
}

static bool listing_push(rt_cache_listing *l, const rt_cache_entry *e)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 32;
        rt_cache_entry *nv = plumb_realloc(l->v, l->cap * sizeof *nv, ncap * sizeof *nv);
        if (!nv)
            return false;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = *e;
    return true;
}

void rt_cache_listing_free(rt_cache_listing *l)
{
    if (l->v)
        plumb_free(l->v, l->cap * sizeof *l->v);
    memset(l, 0, sizeof *l);
}

static int by_name(const void *pa, const void *pb)
{
    return strcmp(((const rt_cache_entry *)pa)->file, ((const rt_cache_entry *)pb)->file);
}

static void set_bad(rt_cache_entry *e, rt_cache_state s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_bad(rt_cache_entry *e, rt_cache_state s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->state = s;
    vsnprintf(e->reason, sizeof e->reason, fmt, ap);
    va_end(ap);
}

/* Copies the identifier after "@" at p (letters, digits, _ . $ -). */
static void copy_ident(char *out, size_t cap, const char *p, const char *end)
{
    size_t k = 0;
    while (p < end && k + 1 < cap &&
           ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
            *p == '.' || *p == '$' || *p == '-'))
        out[k++] = *p++;
    out[k] = 0;
}

/* The module and function names of the stored canonical text: "module @M"
 * and the first "func.func ... @F" (the text is ir_print's, so both start
 * a line). Only read from entries whose mac verified. */
static void stored_names(rt_cache_entry *e, const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; p < end; p++) {
        if (p != text && p[-1] != '\n')
            continue;
        const char *q = p;
        while (q < end && *q == ' ')
            q++;
        if (!e->module[0] && (size_t)(end - q) > 8 && memcmp(q, "module @", 8) == 0)
            copy_ident(e->module, sizeof e->module, q + 8, end);
        if ((size_t)(end - q) > 9 && memcmp(q, "func.func", 9) == 0) {
            const char *at = q + 9;
            while (at < end && *at != '@' && *at != '\n' && *at != '(')
                at++;
            if (at < end && *at == '@')
                copy_ident(e->func, sizeof e->func, at + 1, end);
            return;
        }
    }
}

/* The checks rt_disk_load makes before serving, on the whole file. False
 * only when out of memory (the entry is then left unjudged). */
static bool check_header(rt_cache_entry *e, const uint8_t *buf, size_t n, const uint64_t name_key_[2])
{
    admin_header h;
    if (n < 8 || memcmp(buf, "PLUMBRTC", 8) != 0) {
        set_bad(e, RT_CACHE_FOREIGN, "not a plumb cache entry (no PLUMBRTC magic)");
        return true;
    }
    if (n < sizeof h) {
        set_bad(e, RT_CACHE_CORRUPT, "truncated: %zu bytes, shorter than the %zu-byte header", n, sizeof h);
        return true;
    }
    memcpy(&h, buf, sizeof h);
    if (h.version != ADMIN_DISK_VERSION || h.header_bytes != sizeof h) {
        set_bad(e, RT_CACHE_STALE, "format version %u (this build reads version %u)", h.version,
                ADMIN_DISK_VERSION);
        return true;
    }
    memcpy(e->runtime, h.runtime, sizeof e->runtime);
    e->runtime[sizeof e->runtime - 1] = 0;
    e->isa = h.isa;
    e->opt_level = h.opt_level;
    e->isa_name = rt_isa_name((plumb_isa)h.isa);
    if (strncmp(h.runtime, RT_RUNTIME_VERSION, sizeof h.runtime) != 0) {
        set_bad(e, RT_CACHE_STALE, "written by another build ('%s'; this build is '%s')", e->runtime,
                RT_RUNTIME_VERSION);
        return true;
    }
    if (h.key[0] != name_key_[0] || h.key[1] != name_key_[1]) {
        set_bad(e, RT_CACHE_FOREIGN, "its header's key %016llx%016llx is not the key in its name",
                (unsigned long long)h.key[0], (unsigned long long)h.key[1]);
        return true;
    }
    uint64_t want = (uint64_t)sizeof h + h.canon_bytes + h.text_bytes;
    if (h.canon_bytes > ADMIN_DISK_MAX_BYTES || h.text_bytes > ADMIN_DISK_MAX_BYTES) {
        set_bad(e, RT_CACHE_CORRUPT, "its header's lengths are impossible (graph %llu, program %llu bytes)",
                (unsigned long long)h.canon_bytes, (unsigned long long)h.text_bytes);
        return true;
    }
    if ((uint64_t)n < want) {
        set_bad(e, RT_CACHE_CORRUPT, "truncated: %zu bytes, its header says %llu", n, (unsigned long long)want);
        return true;
    }
    if ((uint64_t)n > want) {
        set_bad(e, RT_CACHE_CORRUPT, "%zu bytes, its header says %llu (data after the end)", n,
                (unsigned long long)want);
        return true;
    }
    /* cache.c's mac: XXH3-128 of the build secret, the header with its mac
     * zeroed, then the body */
    admin_header z = h;
    z.mac[0] = z.mac[1] = 0;
    XXH3_state_t *st = XXH3_createState();
    if (!st) {
        return false;
    }
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, rt_build_secret, sizeof rt_build_secret);
    XXH3_128bits_update(st, &z, sizeof z);
    XXH3_128bits_update(st, buf + sizeof h, n - sizeof h);
    XXH128_hash_t r = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    if (r.low64 != h.mac[0] || r.high64 != h.mac[1]) {
        set_bad(e, RT_CACHE_CORRUPT, "authentication failed (changed after it was written)");
        return true;
    }
    e->state = RT_CACHE_VALID;
    e->reason[0] = 0;
    stored_names(e, (const char *)buf + sizeof h + h.canon_bytes, (size_t)h.text_bytes);
    return true;
}

/* verify, every valid entry: the stored graph reads back and is the one
 * its key names (what a lookup compares byte for byte). False when not. */
static bool check_graph(rt_cache_entry *e, const uint8_t *buf, const uint64_t key[2])
{
    admin_header h;
    memcpy(&h, buf, sizeof h);
    size_t cn = (size_t)h.canon_bytes;
    uint8_t *cb = plumb_malloc(cn ? cn : 1);
    if (!cb)
        return true;   /* unjudged, not bad */
    memcpy(cb, buf + sizeof h, cn);
    rt_canon c;
    if (!rt_canon_from_bytes(&c, cb, cn)) {
        plumb_free(cb, cn ? cn : 1);
        set_bad(e, RT_CACHE_CORRUPT, "its stored graph does not parse back");
        return false;
    }
    uint64_t k[2];
    rt_canon_key(&c, k);
    rt_canon_free(&c);
    if (k[0] != key[0] || k[1] != key[1]) {
        set_bad(e, RT_CACHE_CORRUPT, "its stored graph hashes to %016llx%016llx, not to its key",
                (unsigned long long)k[0], (unsigned long long)k[1]);
        return false;
    }
    return true;
}

/* verify, the sample: the stored program is canonical text that parses,
 * verifies, prints back to itself and builds as a hit would build it. */
static void check_program(rt_cache_entry *e, const uint8_t *buf, rt_pool *pool)
{
    admin_header h;
    memcpy(&h, buf, sizeof h);
    e->deep = true;
    size_t cn = (size_t)h.canon_bytes, tn = (size_t)h.text_bytes;
    const char *text = (const char *)buf + sizeof h + cn;
    plumb_diag d = {.code = PLUMB_OK};
    ir_parse_options po = {sizeof po, 0, 0};
    ir_module *m = ir_parse(text, tn, NULL, &po, &d);
    if (!m) {
        set_bad(e, RT_CACHE_CORRUPT, "its stored program does not parse (line %u: %s)", d.loc.line, d.msg);
        return;
    }
    ir_verify_options vo = {sizeof vo, 0};
    if (!ir_verify(m, &vo, &d)) {
        set_bad(e, RT_CACHE_CORRUPT, "its stored program does not verify (line %u: %s)", d.loc.line, d.msg);
        ir_module_free(m);
        return;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    ir_print(&b, m);
    ir_module_free(m);
    if (b.failed) {
        plumb_buf_free(&b);
        e->deep = false;
        return;
    }
    if (b.len != tn || memcmp(b.data, text, tn) != 0) {
        size_t at = 0;
        while (at < tn && at < b.len && b.data[at] == text[at])
            at++;
        set_bad(e, RT_CACHE_CORRUPT, "its stored program is not canonical text (it prints back differently "
                "from byte %zu)", at);
        plumb_buf_free(&b);
        return;
    }
    plumb_buf_free(&b);
    /* Built as a hit would build it, at the stored level where this CPU has
     * it (an entry for a wider ISA still checks out for its text). */
    plumb_isa isa = (plumb_isa)h.isa;
    if (isa < PLUMB_ISA_PORTABLE || isa > rt_cpu_best_isa())
        isa = rt_cpu_best_isa();
    rt_compile_opts co = {h.opt_level, isa, plumb_max_bytes(0), pool, false};
    rt_program *p = rt_program_load(text, tn, &co, &d);
    if (!p) {
        set_bad(e, RT_CACHE_CORRUPT, "its stored program does not build: %s", d.msg);
        return;
    }
    rt_program_free(p);
}

/* Reads the entry's whole file relative to dirfd (no link followed, only a
 * regular file), then checks it. False only when out of memory. */
static bool read_entry(int dirfd, rt_cache_entry *e, bool verify, bool rebuild, rt_pool *pool)
{
    int fd = openat(dirfd, e->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        set_bad(e, RT_CACHE_CORRUPT, "cannot be opened: %s", strerror(errno));
        return true;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        set_bad(e, RT_CACHE_FOREIGN, "not a regular file");
        return true;
    }
    e->bytes = (uint64_t)sb.st_size;
    e->used = sb.st_mtim;
    e->ino = (uint64_t)sb.st_ino;
    if ((uint64_t)sb.st_size > 2 * ADMIN_DISK_MAX_BYTES + sizeof(admin_header)) {
        close(fd);
        set_bad(e, RT_CACHE_CORRUPT, "%llu bytes, larger than any entry can be", (unsigned long long)sb.st_size);
        return true;
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *buf = plumb_malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        return false;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    uint64_t key[2];
    name_key(e->file, key);
    if (!check_header(e, buf, got, key)) {
        plumb_free(buf, n ? n : 1);
        return false;
    }
    if (verify && e->state == RT_CACHE_VALID && check_graph(e, buf, key) && rebuild)
        check_program(e, buf, pool);
    plumb_free(buf, n ? n : 1);
    return true;
}

bool rt_cache_scan(const char *dir, bool verify, uint32_t sample, rt_cache_listing *out, bool *missing, char *msg,
                   size_t cap)
{
    memset(out, 0, sizeof *out);
    *missing = false;
    int dirfd = rt_disk_dir_open(dir, false, msg, cap);
    if (dirfd < 0) {
        *missing = errno == ENOENT;
        if (*missing)
            snprintf(msg, cap, "cache directory '%s' does not exist", dir);
        return false;
    }
    int lfd = dup(dirfd);
    DIR *dp = lfd >= 0 ? fdopendir(lfd) : NULL;
    rt_pool *pool = NULL;
    bool ok = false;
    if (!dp) {
        snprintf(msg, cap, "cannot read cache directory '%s': %s", dir, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        goto out_close;
    }
    struct dirent *de;
    errno = 0;
    while ((de = readdir(dp)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat sb;
        if (!is_entry_name(de->d_name) || fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode)) {
            out->ignored++;
            continue;
        }
        rt_cache_entry e;
        memset(&e, 0, sizeof e);
        memcpy(e.file, de->d_name, 32 + 7 + 1);
        if (!listing_push(out, &e)) {
            snprintf(msg, cap, "out of memory listing '%s'", dir);
            goto out_dir;
        }
        errno = 0;
    }
    if (errno) {
        snprintf(msg, cap, "cannot read cache directory '%s': %s", dir, strerror(errno));
        goto out_dir;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_name);
    if (verify && out->n) {
        plumb_diag d = {.code = PLUMB_OK};
        if (!(pool = rt_pool_new(1, &d))) {
            snprintf(msg, cap, "%s", d.msg);
            goto out_dir;
        }
    }
    uint32_t deep_done = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (!read_entry(dirfd, &out->v[i], verify, deep_done < sample, pool)) {
            snprintf(msg, cap, "out of memory reading '%s/%s'", dir, out->v[i].file);
            goto out_dir;
        }
        if (out->v[i].deep)
            deep_done++;
    }
    ok = true;
out_dir:
    closedir(dp);
out_close:
    if (pool)
        rt_pool_free(pool);
    close(dirfd);
    if (!ok)
        rt_cache_listing_free(out);
    return ok;
}

bool rt_cache_remove(const char *dir, const rt_cache_listing *l, bool all, uint32_t *removed, uint64_t *freed,
                     char *msg, size_t cap)
{
    *removed = 0;
    *freed = 0;
    int dirfd = rt_disk_dir_open(dir, false, msg, cap);
    if (dirfd < 0)
        return false;
    bool ok = true;
    for (size_t i = 0; i < l->n; i++) {
        const rt_cache_entry *e = &l->v[i];
        if (!all && e->state == RT_CACHE_VALID)
            continue;
        /* Looked at again: whatever is under the name now must still be the
         * regular file that was judged (unlinkat removes a name, never what a
         * link points to; a rebuilt entry is a new file renamed over it). */
        struct stat sb;
        if (!is_entry_name(e->file) || fstatat(dirfd, e->file, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode) || (uint64_t)sb.st_ino != e->ino)
            continue;
        if (unlinkat(dirfd, e->file, 0) != 0) {
            if (errno == ENOENT)
                continue;
            if (ok)
                snprintf(msg, cap, "cannot remove '%s/%s': %s", dir, e->file, strerror(errno));
            ok = false;
            continue;
        }
        (*removed)++;
        *freed += (uint64_t)sb.st_size;
    }
    close(dirfd);
    return ok;
}

uint32_t rt_cache_evict(const char *dir, uint64_t max_bytes, uint64_t *left)
{
    return rt_disk_evict(dir, max_bytes, NULL, left);
}
