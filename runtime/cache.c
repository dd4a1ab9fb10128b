/* The persistent disk cache: one file per key, DIR/KEYHEX.plumbc.
 *
 * Layout (little-endian):
 *   magic "PLUMBRTC"          8 bytes
 *   u32 format version        RT_DISK_VERSION
 *   u32 header bytes          sizeof the header, for a sanity check
 *   char runtime[32]          RT_RUNTIME_VERSION (the build identity), NUL-padded
 *   u32 isa                   the ISA level the program was compiled for
 *   u32 opt_level
 *   u64 key[2]
 *   u64 canon bytes           length of the canonical serialization
 *   u64 text bytes            length of the optimized program's text
 *   u64 mac[2]                XXH3-128 of the build's secret (rt_build_secret),
 *                             the header (mac zero) and everything after it
 *   canonical serialization, then the optimized program as canonical text.
 *
 * A reader trusts nothing: every field must match what this process would
 * write for the same program, the file size must be exactly the header plus
 * the two lengths, the mac must match, and the stored canonical
 * serialization must equal the one being looked up byte for byte (so a hash
 * collision can never serve a wrong program). Anything else is a miss, the
 * reason is returned (the runtime logs and counts it) and the entry is
 * rebuilt. Writers create a unique temporary file in DIR and rename it over
 * the entry, so a reader sees a whole old entry, a whole new one, or none —
 * never half of one.
 *
 * Why a keyed mac and not a checksum: the stored program text is what runs,
 * and the graph comparison cannot vouch for it. An entry whose text was
 * edited (an `add` where the graph says `subtract`) with a plain checksum
 * recomputed would pass every other check. The mac's key is drawn at random
 * when the build identity is generated, so only the build that wrote an
 * entry can produce a mac it accepts: an entry edited outside plumb, or
 * written by any other build (other sources, flags, or just another build
 * directory), is rejected. XXH3 is not a cryptographic mac; against someone
 * who can read this binary the directory's permissions (below) are the
 * boundary, as for any file the user's programs run.
 *
 * The directory itself must be trustworthy, since entry names are
 * predictable: whoever can create files in it could plant an entry (or a
 * link) under the name the next lookup uses. So it is created 0700 with its
 * missing parents, and every open of it checks, on the opened descriptor,
 * that no other user can write it (rt_disk_dir_open's rule). Entries are
 * opened relative to that descriptor without following links, read only if
 * they are regular files, and written by plumb_write_file_atomic_at. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "rt_guard.h"

#define RT_DISK_VERSION 2u
/* A cache entry larger than this is not read (a corrupt length field must
 * not make us allocate gigabytes). */
#define RT_DISK_MAX_BYTES ((uint64_t)1 << 32)

typedef struct disk_header {
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
} disk_header;

_Static_assert(sizeof(disk_header) == 8 + 4 + 4 + 32 + 4 + 4 + 16 + 8 + 8 + 16, "disk header has no padding");

/* PLUMB_CACHE_SHARED=1: the user trusts every member of the directory's
 * group (a cache shared by a CI team). */
static bool shared_opt_in(void)
{
    const char *s = getenv("PLUMB_CACHE_SHARED");
    return s && strcmp(s, "1") == 0;
}

int rt_disk_dir_open(const char *dir, bool create, char *msg, size_t cap)
{
    if (create) {
        plumb_diag d = {.code = PLUMB_OK};
        if (!plumb_mkdir_p(dir, 0700, &d)) {
            snprintf(msg, cap, "%s", d.msg);
            return -1;
        }
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(msg, cap, "cannot open cache directory '%s': %s", dir, strerror(e));
        errno = e;   /* ENOENT tells a lookup it is a plain miss */
        return -1;
    }
    /* Checked on the descriptor every later open goes through, so renaming
     * another directory into place after the check gains nothing. */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(msg, cap, "cannot examine cache directory '%s': %s", dir, strerror(errno));
        goto out_close;
    }
    unsigned mode = (unsigned)st.st_mode & 07777;
    bool shared = shared_opt_in();
    if (st.st_mode & S_IWOTH) {
        /* Even with the sticky bit: anyone can still create the next entry's name first. */
        snprintf(msg, cap, "cache directory '%s' is writable by every user (mode %04o)", dir, mode);
        goto out_close;
    }
    if ((st.st_mode & S_IWGRP) && !shared) {
        snprintf(msg, cap, "cache directory '%s' is writable by its group (mode %04o; "
                           "PLUMB_CACHE_SHARED=1 trusts the group)", dir, mode);
        goto out_close;
    }
    uid_t me = geteuid();
    if (st.st_uid != me && st.st_uid != 0 && !shared) {
        snprintf(msg, cap, "cache directory '%s' is owned by uid %u, not by this user (uid %u) or root", dir,
                 (unsigned)st.st_uid, (unsigned)me);
        goto out_close;
    }
    return fd;
out_close:
    close(fd);
    errno = EPERM;
    return -1;
}

bool rt_disk_dir_usable(const char *dir, FILE *log)
{
    char msg[1200];
    int fd = rt_disk_dir_open(dir, true, msg, sizeof msg);
    if (fd < 0) {
        if (log)
            fprintf(log, "plumb: warning: disk cache disabled: %s\n", msg);
        return false;
    }
    close(fd);
    return true;
}

/* KEYHEX.plumbc, the entry's name within the directory. */
static void entry_name(const uint64_t key[2], char out[64])
{
    snprintf(out, 64, "%016llx%016llx.plumbc", (unsigned long long)key[0], (unsigned long long)key[1]);
}

bool rt_disk_path(const char *dir, const uint64_t key[2], char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%016llx%016llx.plumbc", dir, (unsigned long long)key[0],
                     (unsigned long long)key[1]);
    return n > 0 && (size_t)n < cap;
}

static void fill_header(disk_header *h, const uint64_t key[2], const rt_key_ctx *kc, size_t canon, size_t text)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, "PLUMBRTC", 8);
    h->version = RT_DISK_VERSION;
    h->header_bytes = sizeof *h;
    memcpy(h->runtime, RT_RUNTIME_VERSION, sizeof h->runtime);
    h->runtime[sizeof h->runtime - 1] = 0;
    h->isa = (uint32_t)kc->isa;
    h->opt_level = kc->opt_level;
    h->key[0] = key[0];
    h->key[1] = key[1];
    h->canon_bytes = canon;
    h->text_bytes = text;
}

/* The entry's mac: XXH3-128 over the build secret, the header with its mac
 * zeroed, then the parts of the body. False when out of memory. */
static bool entry_mac(const disk_header *h, const void *const *parts, const size_t *lens, int n, uint64_t mac[2])
{
    disk_header z = *h;
    z.mac[0] = z.mac[1] = 0;
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        return false;
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, rt_build_secret, sizeof rt_build_secret);
    XXH3_128bits_update(st, &z, sizeof z);
    for (int i = 0; i < n; i++)
        XXH3_128bits_update(st, parts[i], lens[i]);
    XXH128_hash_t r = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    mac[0] = r.low64;
    mac[1] = r.high64;
    return true;
}

char *rt_disk_load(const char *dir, const uint64_t key[2], const rt_canon *c, const rt_key_ctx *kc, size_t *len,
                   const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = "";
    if (!dir) {
        *why = "no cache directory";
        return NULL;
    }
    char msg[1200], name[64];
    int dirfd = rt_disk_dir_open(dir, false, msg, sizeof msg);
    if (dirfd < 0) {
        /* missing: a plain miss; present but untrusted: said so */
        *why = errno == ENOENT ? "" : "cache directory is not trusted or cannot be opened";
        return NULL;
    }
    entry_name(key, name);
    /* O_NONBLOCK: a FIFO planted under the name must not hang the open. */
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int open_errno = errno;
    close(dirfd);
    if (fd < 0) {
        if (open_errno == ELOOP || open_errno == EMLINK)
            *why = "entry is a symbolic link";
        return NULL;   /* otherwise a plain miss */
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *why = "entry is not a regular file";
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *why = "out of memory reading the entry";
        close(fd);
        return NULL;
    }
    char *text = NULL;
    uint8_t *body = NULL;
    size_t body_len = 0;
    disk_header h, want;
    if (fread(&h, sizeof h, 1, f) != 1) {
        *why = "entry is shorter than its header";
        goto out;
    }
    fill_header(&want, key, kc, c->len, (size_t)h.text_bytes);
    if (memcmp(h.magic, want.magic, 8) != 0) {
        *why = "bad magic";
        goto out;
    }
    if (h.version != want.version || h.header_bytes != want.header_bytes) {
        *why = "format version differs";
        goto out;
    }
    if (memcmp(h.runtime, want.runtime, sizeof h.runtime) != 0) {
        *why = "runtime version differs";
        goto out;
    }
    if (h.isa != want.isa || h.opt_level != want.opt_level) {
        *why = "CPU features or options differ";
        goto out;
    }
    if (h.key[0] != key[0] || h.key[1] != key[1] || h.canon_bytes != c->len) {
        *why = "key or graph size differs";
        goto out;
    }
    if (h.text_bytes > RT_DISK_MAX_BYTES || h.canon_bytes > RT_DISK_MAX_BYTES ||
        (uint64_t)sb.st_size != sizeof h + h.canon_bytes + h.text_bytes) {
        *why = "entry size does not match its header";
        goto out;
    }
    body_len = (size_t)(h.canon_bytes + h.text_bytes);
    if (!(body = plumb_malloc(body_len ? body_len : 1))) {
        *why = "out of memory reading the entry";
        goto out;
    }
    if (body_len && fread(body, 1, body_len, f) != body_len) {
        *why = "entry is truncated";
        goto out;
    }
    uint64_t mac[2];
    const void *part = body;
    if (!entry_mac(&h, &part, &body_len, 1, mac)) {
        *why = "out of memory reading the entry";
        goto out;
    }
    if (mac[0] != h.mac[0] || mac[1] != h.mac[1]) {
        *why = "authentication failed (the entry was changed after it was written, or another build wrote it)";
        goto out;
    }
    if (c->len && memcmp(body, c->bytes, c->len) != 0) {
        *why = "stored graph differs (hash collision)";
        goto out;
    }
    if (!(text = plumb_malloc((size_t)h.text_bytes + 1))) {
        *why = "out of memory reading the entry";
        goto out;
    }
    memcpy(text, body + c->len, (size_t)h.text_bytes);
    text[h.text_bytes] = 0;
    *len = (size_t)h.text_bytes;
    /* The modification time records the last use: eviction drops the least
     * recently used entries first. A read-only entry just keeps its time. */
    (void)futimens(fileno(f), NULL);
out:
    if (body)
        plumb_free(body, body_len ? body_len : 1);
    fclose(f);
    return text;
}

bool rt_disk_store(const char *dir, const uint64_t key[2], const rt_canon *c, const rt_key_ctx *kc, const char *text,
                   size_t len, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    char path[4096];
    if (!rt_disk_path(dir, key, path, sizeof path)) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cache directory path '%s' is too long", dir);
        return false;
    }
    char msg[1200], name[64];
    int dirfd = rt_disk_dir_open(dir, true, msg, sizeof msg);
    if (dirfd < 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "%s", msg);
        return false;
    }
    entry_name(key, name);
    disk_header h;
    fill_header(&h, key, kc, c->len, len);
    /* mac over header + canon + text without concatenating them */
    const void *parts[3] = {&h, c->bytes, text};
    size_t lens[3] = {sizeof h, c->len, len};
    if (!entry_mac(&h, parts + 1, lens + 1, 2, h.mac)) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory writing the cache entry");
        close(dirfd);
        return false;
    }
    /* Concurrent processes never see half an entry: the write is atomic. */
    /* A group-shared cache's entries must be readable by the group. */
    bool ok = plumb_write_file_atomic_at(dirfd, name, path, parts, lens, 3, shared_opt_in() ? 0660 : 0600, d);
    close(dirfd);
    return ok;
}

typedef struct disk_ent {
    char name[64];
    uint64_t bytes;
    struct timespec used;
} disk_ent;

static int older_first(const void *pa, const void *pb)
{
    const disk_ent *a = pa, *b = pb;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* True for NAME = 32 hex digits + ".plumbc": only entries are ever counted
 * or removed, never another file that happens to be in the directory. */
static bool is_entry_name(const char *n)
{
    if (strlen(n) != 32 + 7 || strcmp(n + 32, ".plumbc") != 0)
        return false;
    for (int i = 0; i < 32; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return false;
    return true;
}

uint32_t rt_disk_evict(const char *dir, uint64_t max_bytes, const uint64_t keep[2], uint64_t *total_out)
{
    char msg[1200], keep_name[64] = "";
    if (total_out)
        *total_out = 0;
    if (keep)
        entry_name(keep, keep_name);
    int dirfd = rt_disk_dir_open(dir, false, msg, sizeof msg);
    if (dirfd < 0)
        return 0;
    int lfd = dup(dirfd);
    DIR *dp = lfd >= 0 ? fdopendir(lfd) : NULL;
    if (!dp) {
        if (lfd >= 0)
            close(lfd);
        close(dirfd);
        return 0;
    }
    disk_ent *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    uint32_t removed = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        struct stat sb;
        if (!is_entry_name(de->d_name) || fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            disk_ent *nv = plumb_realloc(v, cap * sizeof *v, ncap * sizeof *v);
            if (!nv)
                goto out;   /* no eviction this time; the cache still works */
            v = nv;
            cap = ncap;
        }
        memcpy(v[n].name, de->d_name, 32 + 7 + 1);   /* is_entry_name: exactly 39 characters */
        v[n].bytes = (uint64_t)sb.st_size;
        v[n].used = sb.st_mtim;
        total += v[n].bytes;
        n++;
    }
    if (total > max_bytes) {
        qsort(v, n, sizeof *v, older_first);
        for (size_t i = 0; i < n && total > max_bytes; i++) {
            if (strcmp(v[i].name, keep_name) == 0)
                continue;
            if (unlinkat(dirfd, v[i].name, 0) == 0 || errno == ENOENT) {
                total -= v[i].bytes;
                removed++;
            }
        }
    }
out:
    if (total_out)
        *total_out = total;
    if (v)
        plumb_free(v, cap * sizeof *v);
    closedir(dp);
    close(dirfd);
    return removed;
}

/* ---- the trace-once guard's forms (rt_guard.h) ------------------------------------ */

void *rt_guard_find(const rt_guard_set *g, const rt_canon *form)
{
    uint64_t h = XXH3_64bits(form->bytes, form->len);
    for (uint32_t i = 0; i < g->n; i++) {
        const rt_guard *s = &g->slot[i];
        if (s->hash == h && s->len == form->len && memcmp(s->bytes, form->bytes, form->len) == 0)
            return s->target;
    }
    return NULL;
}

bool rt_guard_add(rt_guard_set *g, const rt_canon *form, void *target)
{
    uint64_t h = XXH3_64bits(form->bytes, form->len);
    rt_guard *s = NULL;
    for (uint32_t i = 0; i < g->n && !s; i++)
        if (g->slot[i].hash == h && g->slot[i].len == form->len &&
            memcmp(g->slot[i].bytes, form->bytes, form->len) == 0)
            s = &g->slot[i];
    if (!s) {
        if (g->n < RT_GUARD_SLOTS) {
            s = &g->slot[g->n++];
        } else {
            s = &g->slot[g->next];
            g->next = (g->next + 1) % RT_GUARD_SLOTS;
        }
        if (s->cap < form->len) {
            uint8_t *nb = plumb_realloc(s->bytes, s->cap, form->len);
            if (!nb) {
                /* the slot keeps no form: it can never match */
                s->len = 0;
                s->hash = 0;
                s->target = NULL;
                return false;
            }
            s->bytes = nb;
            s->cap = form->len;
        }
        memcpy(s->bytes, form->bytes, form->len);
        s->len = form->len;
        s->hash = h;
    }
    s->target = target;
    return true;
}

void rt_guard_clear(rt_guard_set *g)
{
    for (uint32_t i = 0; i < RT_GUARD_SLOTS; i++)
        if (g->slot[i].bytes)
            plumb_free(g->slot[i].bytes, g->slot[i].cap);
    memset(g, 0, sizeof *g);
}
