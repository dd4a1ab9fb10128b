/* The allocator hook, arenas, diagnostics, string buffers and file reading
 * shared by every module. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plumb/core.h"

/* ---- allocator hook ------------------------------------------------------- */

/* Large blocks on huge pages. The whole 2 MiB pages inside a fresh block of
 * at least PLUMB_HUGE_MIN bytes are advised MADV_HUGEPAGE, as numpy does for
 * its large arrays: with transparent huge pages in `madvise` mode, a tensor
 * read at random places (a gather's rows) then costs a TLB miss per 2 MiB
 * rather than per 4 KiB, and its first write one fault per 2 MiB rather
 * than per 4 KiB. The block itself is the C library's, as before: freed,
 * resized and reused by it. (Blocks aligned to 2 MiB by posix_memalign were
 * tried: glibc then maps every such block afresh, since its mmap threshold
 * never grows past the alignment slack, so a block allocated and freed per
 * run is faulted in per run. 8 MiB allocated, written and freed 20 times:
 * 7-9 ms a round aligned, 1-4 ms with malloc's reused block, at load 8.)
 * Below the first and after the last 2 MiB boundary of a block the pages
 * stay 4 KiB: at most 4 MiB of a block, none of it added. The advice maps
 * no page (a compile still touches none), and its failure (THP `never`, no
 * THP in the kernel, no madvise on the system) leaves ordinary pages: it
 * is ignored. Blocks below the threshold, resizes, and blocks from a hook
 * set by plumb_set_allocator are left as they come (docs/runtime.md,
 * "Buffer planning"). */
#define PLUMB_HUGE_PAGE ((uintptr_t)2 << 20)
#define PLUMB_HUGE_MIN ((size_t)4 << 20)

static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + PLUMB_HUGE_PAGE - 1) & ~(PLUMB_HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(PLUMB_HUGE_PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    void *q = realloc(ptr, nsize);
    if (q && !ptr && nsize >= PLUMB_HUGE_MIN)
        advise_huge(q, nsize);
    return q;
}

static plumb_alloc_fn g_alloc = default_alloc;
static void *g_alloc_ud;

void plumb_set_allocator(plumb_alloc_fn fn, void *ud)
{
    g_alloc = fn ? fn : default_alloc;
    g_alloc_ud = fn ? ud : NULL;
}

void plumb_get_allocator(plumb_alloc_fn *fn, void **ud)
{
    *fn = g_alloc;
    *ud = g_alloc_ud;
}

void *plumb_malloc(size_t n)
{
    if (n == 0)
        return NULL;
    return g_alloc(g_alloc_ud, NULL, 0, n);
}

void *plumb_calloc(size_t count, size_t size)
{
    uint64_t n;
    if (plumb_mul_overflow_u64(count, size, &n) || n == 0 || n > SIZE_MAX)
        return NULL;
    void *p = plumb_malloc((size_t)n);
    if (p)
        memset(p, 0, (size_t)n);
    return p;
}

void *plumb_realloc(void *p, size_t osize, size_t nsize)
{
    if (nsize == 0) {
        g_alloc(g_alloc_ud, p, osize, 0);
        return NULL;
    }
    return g_alloc(g_alloc_ud, p, osize, nsize);
}

void plumb_free(void *p, size_t size)
{
    if (p)
        g_alloc(g_alloc_ud, p, size, 0);
}

char *plumb_strndup(const char *s, size_t n)
{
    char *p = plumb_malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

bool plumb_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

bool plumb_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* ---- arena ------------------------------------------------------------------ */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size;        /* usable bytes after the header */
    size_t used;        /* bytes handed out from this chunk */
    _Alignas(16) unsigned char data[];
} arena_chunk;

struct plumb_arena {
    arena_chunk *head;
    size_t chunk_bytes;  /* default usable size of a new chunk */
    size_t handed_out;   /* total bytes returned by plumb_arena_alloc */
};

plumb_arena *plumb_arena_new(size_t chunk_bytes)
{
    plumb_arena *a = plumb_malloc(sizeof *a);
    if (!a)
        return NULL;
    a->head = NULL;
    a->chunk_bytes = chunk_bytes ? chunk_bytes : 64 * 1024;
    a->handed_out = 0;
    return a;
}

void plumb_arena_free(plumb_arena *a)
{
    if (!a)
        return;
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        plumb_free(c, sizeof *c + c->size);
        c = next;
    }
    plumb_free(a, sizeof *a);
}

void *plumb_arena_alloc(plumb_arena *a, size_t n)
{
    if (!a)
        return NULL;
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - 15 - sizeof(arena_chunk))
        return NULL;
    size_t need = (n + 15) & ~(size_t)15;
    arena_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t size = need > a->chunk_bytes ? need : a->chunk_bytes;
        arena_chunk *nc = plumb_malloc(sizeof *nc + size);
        if (!nc)
            return NULL;
        nc->size = size;
        nc->used = 0;
        /* A large one-off block goes behind the head so the head's free space
         * stays usable for small allocations. */
        if (c && need > a->chunk_bytes) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->handed_out += need;
    memset(p, 0, n);
    return p;
}

void *plumb_arena_array(plumb_arena *a, size_t count, size_t size)
{
    uint64_t n;
    if (plumb_mul_overflow_u64(count, size, &n) || n > SIZE_MAX)
        return NULL;
    return plumb_arena_alloc(a, (size_t)n);
}

char *plumb_arena_strndup(plumb_arena *a, const char *s, size_t n)
{
    char *p = plumb_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *plumb_arena_strdup(plumb_arena *a, const char *s)
{
    return plumb_arena_strndup(a, s, strlen(s));
}

size_t plumb_arena_bytes(const plumb_arena *a)
{
    return a ? a->handed_out : 0;
}

/* ---- diagnostics ---------------------------------------------------------------- */

plumb_code plumb_diag_vset(plumb_diag *d, plumb_code code, plumb_loc loc,
                           const char *fmt, va_list ap)
{
    if (!d || d->code != PLUMB_OK)
        return code;
    d->code = code;
    d->loc = loc;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    /* A diagnostic is one line: fold embedded newlines. */
    for (char *p = d->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

plumb_code plumb_diag_set(plumb_diag *d, plumb_code code, plumb_loc loc,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plumb_code r = plumb_diag_vset(d, code, loc, fmt, ap);
    va_end(ap);
    return r;
}

void plumb_diag_clear(plumb_diag *d)
{
    /* Everything, file included: callers use it to initialize a diag on the
     * stack, where keeping a field would read an indeterminate value. */
    memset(d, 0, sizeof *d);
}

void plumb_diag_print(const plumb_diag *d, FILE *f)
{
    if (d->file && d->loc.line)
        fprintf(f, "%s:%u:%u: error: %s\n", d->file, d->loc.line, d->loc.col, d->msg);
    else if (d->file)
        fprintf(f, "%s: error: %s\n", d->file, d->msg);
    else if (d->loc.line)
        fprintf(f, "%u:%u: error: %s\n", d->loc.line, d->loc.col, d->msg);
    else
        fprintf(f, "error: %s\n", d->msg);
}

const char *plumb_code_name(plumb_code code)
{
    switch (code) {
    case PLUMB_OK: return "ok";
    case PLUMB_ERR_PARSE: return "parse";
    case PLUMB_ERR_INVALID: return "invalid";
    case PLUMB_ERR_UNSUPPORTED: return "unsupported";
    case PLUMB_ERR_LIMIT: return "limit";
    case PLUMB_ERR_NOMEM: return "out of memory";
    case PLUMB_ERR_IO: return "io";
    case PLUMB_ERR_CHECK: return "check failed";
    case PLUMB_ERR_RUNTIME: return "runtime";
    case PLUMB_ERR_USAGE: return "usage";
    }
    return "unknown";
}

/* ---- string buffer ------------------------------------------------------------- */

void plumb_buf_init(plumb_buf *b)
{
    memset(b, 0, sizeof *b);
}

void plumb_buf_free(plumb_buf *b)
{
    plumb_free(b->data, b->cap);
    memset(b, 0, sizeof *b);
}

static bool buf_reserve(plumb_buf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = plumb_realloc(b->data, b->cap, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void plumb_buf_append(plumb_buf *b, const char *s, size_t n)
{
    if (!buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void plumb_buf_puts(plumb_buf *b, const char *s)
{
    plumb_buf_append(b, s, strlen(s));
}

void plumb_buf_printf(plumb_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        plumb_buf_append(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *plumb_buf_take(plumb_buf *b, size_t *len)
{
    if (!b->data && !b->failed)
        buf_reserve(b, 0);
    if (b->failed) {
        plumb_buf_free(b);
        return NULL;
    }
    b->data[b->len] = '\0';
    /* Shrink to len + 1 so the caller's plumb_free(p, len + 1) is exact. */
    char *p = plumb_realloc(b->data, b->cap, b->len + 1);
    if (!p)
        p = b->data; /* shrinking failed: the block is still valid */
    if (len)
        *len = b->len;
    memset(b, 0, sizeof *b);
    return p;
}

/* ---- files ------------------------------------------------------------------------ */

char *plumb_read_file(const char *path, size_t max_bytes, size_t *len, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (max_bytes && b.len + n > max_bytes) {
            plumb_diag_set(d, PLUMB_ERR_LIMIT, none, "'%s' is larger than the limit of %zu bytes",
                           path, max_bytes);
            plumb_buf_free(&b);
            fclose(f);
            return NULL;
        }
        plumb_buf_append(&b, chunk, n);
        if (b.failed)
            break;
    }
    bool err = ferror(f);
    fclose(f);
    if (err) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot read '%s'", path);
        plumb_buf_free(&b);
        return NULL;
    }
    char *p = plumb_buf_take(&b, len);
    if (!p)
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory reading '%s'", path);
    return p;
}

/* Writes all of data to fd, retrying short writes and interruptions. */
static bool write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += w;
        len -= (size_t)w;
    }
    return true;
}

const char *plumb_file_kind_name(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return NULL;
    case S_IFLNK:
        return "a symbolic link";
    case S_IFIFO:
        return "a FIFO";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFSOCK:
        return "a socket";
    case S_IFDIR:
        return "a directory";
    default:
        return "not a regular file";
    }
}

/* Splits path into its directory (opened O_DIRECTORY, following links: the
 * user named it) and its final component (*name points into path). The
 * final component is never opened here, so a FIFO there cannot block us. */
static int open_parent(const char *path, const char **name, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': it names a directory, not a file", path);
        return -1;
    }
    int fd;
    if (!slash) {
        fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else if (slash == path) {
        fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        size_t n = (size_t)(slash - path);
        char *dir = plumb_strndup(path, n);
        if (!dir) {
            plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory writing '%s'", path);
            return -1;
        }
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        plumb_free(dir, n + 1);
    }
    if (fd < 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': cannot open its directory: %s", path,
                       strerror(errno));
        return -1;
    }
    *name = base;
    return fd;
}

/* Looks at name in dirfd without following it. True if it is absent
 * (*exists false) or a regular file (*mode its permission bits). */
static bool check_target_at(int dirfd, const char *name, const char *display, bool *exists, mode_t *mode,
                            plumb_diag *d)
{
    plumb_loc none = {0, 0};
    struct stat st;
    *exists = false;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return true;
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': %s", display, strerror(errno));
        return false;
    }
    const char *kind = plumb_file_kind_name((unsigned)st.st_mode);
    if (kind) {
        if (S_ISLNK(st.st_mode))
            plumb_diag_set(d, PLUMB_ERR_IO, none,
                           "cannot write '%s': it is a symbolic link (plumb never writes through a link; "
                           "name its target instead)", display);
        else
            plumb_diag_set(d, PLUMB_ERR_IO, none,
                           "cannot write '%s': it is %s (plumb only replaces regular files)", display, kind);
        return false;
    }
    *exists = true;
    /* Permission bits only: a set-id bit must not survive a rewrite. */
    *mode = st.st_mode & 0777;
    return true;
}

bool plumb_check_write_target(const char *path, plumb_diag *d)
{
    const char *name;
    int dirfd = open_parent(path, &name, d);
    if (dirfd < 0)
        return false;
    bool exists;
    mode_t mode;
    bool ok = check_target_at(dirfd, name, path, &exists, &mode, d);
    close(dirfd);
    return ok;
}

/* A temporary name next to name: "NAME.plumb-tmp.XXXXXX" with NAME cut so
 * the whole stays within NAME_MAX. The suffix only has to make collisions
 * unlikely: O_EXCL settles the rest. */
static void temp_name(char *out, size_t cap, const char *name, unsigned attempt)
{
    static _Atomic unsigned long counter;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull;
    x ^= (uint64_t)getpid() << 32;
    x ^= (uint64_t)(uintptr_t)&ts;   /* differs between threads */
    x ^= (uint64_t)atomic_fetch_add(&counter, 1) * 0xBF58476D1CE4E5B9ull;
    x ^= attempt;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    char sfx[7];
    for (int i = 0; i < 6; i++, x /= 62)
        sfx[i] = digits[x % 62];
    sfx[6] = 0;
    snprintf(out, cap, "%.200s.plumb-tmp.%s", name, sfx);
}

bool plumb_write_file_atomic_at(int dirfd, const char *name, const char *display, const void *const *parts,
                                const size_t *lens, size_t n_parts, unsigned new_mode, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    bool exists;
    mode_t mode = 0;
    if (!check_target_at(dirfd, name, display, &exists, &mode, d))
        return false;

    char tmp[256];
    int fd = -1;
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        temp_name(tmp, sizeof tmp, name, attempt);
        /* O_EXCL|O_NOFOLLOW: a name planted meanwhile is never opened. The
         * kernel applies the umask; a replacement starts no more open than
         * the file it replaces, so its data is never readable by more users
         * than before, not even while it is being written. */
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    exists ? mode : (mode_t)(new_mode & 0777));
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot create a temporary file next to '%s': %s", display,
                       strerror(errno));
        return false;
    }
    for (size_t i = 0; i < n_parts; i++) {
        if (!write_all(fd, parts[i], lens[i])) {
            plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': %s", display, strerror(errno));
            goto out_close;
        }
    }
    /* Keep the permissions of the file being replaced. */
    if ((exists && fchmod(fd, mode) != 0) || fsync(fd) != 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': %s", display, strerror(errno));
        goto out_close;
    }
    if (close(fd) != 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot write '%s': %s", display, strerror(errno));
        goto out_unlink;
    }
    /* renameat replaces whatever holds the name by now (even a link planted
     * since the check) and never follows it. */
    if (renameat(dirfd, tmp, dirfd, name) != 0) {
        plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot replace '%s': %s", display, strerror(errno));
        goto out_unlink;
    }
    (void)fsync(dirfd);   /* makes the rename durable; a file system that refuses loses nothing else */
    return true;
out_close:
    close(fd);
out_unlink:
    unlinkat(dirfd, tmp, 0);
    return false;
}

bool plumb_write_file_atomic(const char *path, const void *const *parts, const size_t *lens,
                             size_t n_parts, plumb_diag *d)
{
    const char *name;
    int dirfd = open_parent(path, &name, d);
    if (dirfd < 0)
        return false;
    bool ok = plumb_write_file_atomic_at(dirfd, name, path, parts, lens, n_parts, 0666, d);
    close(dirfd);
    return ok;
}

bool plumb_mkdir_p(const char *path, unsigned mode, plumb_diag *d)
{
    plumb_loc none = {0, 0};
    size_t n = strlen(path);
    char *p = plumb_strndup(path, n);
    if (!p) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory creating '%s'", path);
        return false;
    }
    bool ok = false;
    /* Every prefix that ends just before a '/', then the whole path; the
     * root and repeated slashes are skipped. */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && (p[i] != '/' || p[i - 1] == '/'))
            continue;
        char c = p[i];
        p[i] = 0;
        int r = mkdir(p, (mode_t)(mode & 07777));
        int e = errno;
        struct stat st;
        if (r != 0 && (e != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
            if (e == EEXIST)
                plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot create directory '%s': '%s' is not a directory",
                               path, p);
            else
                plumb_diag_set(d, PLUMB_ERR_IO, none, "cannot create directory '%s': '%s': %s", path, p,
                               strerror(e));
            goto out_free;
        }
        p[i] = c;
    }
    ok = true;
out_free:
    plumb_free(p, n + 1);
    return ok;
}

/* ---- JSON strings -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence starting at p (RFC 3629, table 3-7 of
 * the Unicode standard's well-formed byte sequences), or 0 when the byte at p
 * does not start one. p is NUL-terminated, so a truncated sequence stops at
 * the NUL, which is no continuation byte. */
static size_t utf8_seq_len(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;          /* overlong below U+0800 */
        else if (c == 0xED)
            hi = 0x9F;          /* surrogates U+D800..U+DFFF */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;          /* overlong below U+10000 */
        else if (c == 0xF4)
            hi = 0x8F;          /* above U+10FFFF */
    } else {
        return 0;               /* continuation byte, C0/C1 overlong lead, F5..FF */
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

/* The one JSON string encoder: emit(ctx, bytes, n) receives the output. */
static void json_str_emit(const char *s, void (*emit)(void *, const char *, size_t), void *ctx)
{
    emit(ctx, "\"", 1);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned char c = *p;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            emit(ctx, esc, 2);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            emit(ctx, esc, 6);
            p++;
        } else {
            size_t n = utf8_seq_len(p);
            if (n == 0) {
                emit(ctx, "\\ufffd", 6);
                p++;
            } else {
                emit(ctx, (const char *)p, n);
                p += n;
            }
        }
    }
    emit(ctx, "\"", 1);
}

static void emit_buf(void *ctx, const char *s, size_t n)
{
    plumb_buf_append(ctx, s, n);
}

static void emit_file(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, ctx);
}

void plumb_json_str_append(plumb_buf *b, const char *s)
{
    json_str_emit(s, emit_buf, b);
}

void plumb_json_str_fput(FILE *f, const char *s)
{
    json_str_emit(s, emit_file, f);
}
