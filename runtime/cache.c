/* The persistent disk cache: one file per key, DIR/KEYHEX.plumbc.
 *
 * Layout (little-endian):
 *   magic "PLUMBRTC"          8 bytes
 *   u32 format version        RT_DISK_VERSION
 *   u32 header bytes          sizeof the header, for a sanity check
 *   char runtime[32]          RT_RUNTIME_VERSION, NUL-padded
 *   u32 isa                   the ISA level the program was compiled for
 *   u32 opt_level
 *   u64 key[2]
 *   u64 canon bytes           length of the canonical serialization
 *   u64 text bytes            length of the optimized program's text
 *   u64 checksum              XXH3-64 of the header (checksum field zero) and
 *                             everything after it
 *   canonical serialization, then the optimized program as canonical text.
 *
 * A reader trusts nothing: every field must match what this process would
 * write for the same program, the file size must be exactly the header plus
 * the two lengths, the checksum must match, and the stored canonical
 * serialization must equal the one being looked up byte for byte (so a hash
 * collision can never serve a wrong program). Anything else is a miss and
 * the entry is rebuilt. Writers create a unique temporary file in DIR and
 * rename it over the entry, so a reader sees a whole old entry, a whole new
 * one, or none — never half of one.
 *
 * The directory itself must be trustworthy, since entry names are
 * predictable: whoever can create files in it could plant an entry (or a
 * link) under the name the next lookup uses. So it is created 0700 with its
 * missing parents, and every open of it checks, on the opened descriptor,
 * that no other user can write it (rt_disk_dir_open's rule). Entries are
 * opened relative to that descriptor without following links, read only if
 * they are regular files, and written by plumb_write_file_atomic_at. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "rt_pipeline.h"

#define RT_DISK_VERSION 1u
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
    uint64_t checksum;
} disk_header;

_Static_assert(sizeof(disk_header) == 8 + 4 + 4 + 32 + 4 + 4 + 16 + 8 + 8 + 8, "disk header has no padding");

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
    strncpy(h->runtime, RT_RUNTIME_VERSION, sizeof h->runtime - 1);
    h->isa = (uint32_t)kc->isa;
    h->opt_level = kc->opt_level;
    h->key[0] = key[0];
    h->key[1] = key[1];
    h->canon_bytes = canon;
    h->text_bytes = text;
}

static uint64_t checksum(const disk_header *h, const void *body, size_t len)
{
    disk_header z = *h;
    z.checksum = 0;
    XXH3_state_t *st = XXH3_createState();
    if (!st)   /* fall back to hashing in two steps */
        return XXH3_64bits_withSeed(body, len, XXH3_64bits(&z, sizeof z));
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, &z, sizeof z);
    XXH3_64bits_update(st, body, len);
    uint64_t r = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return r;
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
    if (checksum(&h, body, body_len) != h.checksum) {
        *why = "checksum mismatch";
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
    /* checksum over header + canon + text without concatenating them */
    disk_header z = h;
    XXH3_state_t *st = XXH3_createState();
    if (!st) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory writing the cache entry");
        close(dirfd);
        return false;
    }
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, &z, sizeof z);
    XXH3_64bits_update(st, c->bytes, c->len);
    XXH3_64bits_update(st, text, len);
    h.checksum = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    /* Concurrent processes never see half an entry: the write is atomic. */
    const void *parts[3] = {&h, c->bytes, text};
    size_t lens[3] = {sizeof h, c->len, len};
    /* A group-shared cache's entries must be readable by the group. */
    bool ok = plumb_write_file_atomic_at(dirfd, name, path, parts, lens, 3, shared_opt_in() ? 0660 : 0600, d);
    close(dirfd);
    return ok;
}
