/* plumb core: the allocator hook, arenas, diagnostics and string buffers that
 * every module shares. */
#ifndef PLUMB_CORE_H
#define PLUMB_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PLUMB_VERSION_STRING "0.1.0"

/* ---- allocator hook --------------------------------------------------------
 * One function serves every allocation plumb makes (Lua's lua_Alloc shape):
 *   nsize == 0           free ptr (ptr may be NULL), return NULL
 *   ptr == NULL          allocate nsize bytes
 *   otherwise            resize ptr from osize to nsize bytes
 * Returning NULL for a nonzero nsize is an allocation failure, which every
 * caller turns into an error, never an abort. Tests install a hook that fails
 * the n-th allocation to prove that. */
typedef void *(*plumb_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

void plumb_set_allocator(plumb_alloc_fn fn, void *ud);
void plumb_get_allocator(plumb_alloc_fn *fn, void **ud);
void *plumb_malloc(size_t n);                    /* NULL on failure or n == 0 */
void *plumb_calloc(size_t count, size_t size);   /* NULL on overflow/failure */
void *plumb_realloc(void *p, size_t osize, size_t nsize);
void plumb_free(void *p, size_t size);
char *plumb_strndup(const char *s, size_t n);    /* free with plumb_free(p, n+1) */

/* Overflow-checked size arithmetic: return false when the result does not
 * fit in 64 bits. */
bool plumb_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *out);
bool plumb_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *out);

/* ---- arena -----------------------------------------------------------------
 * Everything a module, a graph or a parse owns lives in one arena, freed at
 * once (ggml's context). Allocations are 16-byte aligned and zeroed. */
typedef struct plumb_arena plumb_arena;

plumb_arena *plumb_arena_new(size_t chunk_bytes);     /* 0 = default (64 KiB) */
void plumb_arena_free(plumb_arena *a);
void *plumb_arena_alloc(plumb_arena *a, size_t n);     /* NULL on failure */
void *plumb_arena_array(plumb_arena *a, size_t count, size_t size); /* checked */
char *plumb_arena_strndup(plumb_arena *a, const char *s, size_t n);
char *plumb_arena_strdup(plumb_arena *a, const char *s);
size_t plumb_arena_bytes(const plumb_arena *a);        /* bytes handed out */

/* ---- diagnostics -----------------------------------------------------------
 * A source location is 1-based; line 0 means "no location". */
typedef struct plumb_loc {
    uint32_t line;    /* 1-based line number, 0 when unknown */
    uint32_t col;     /* 1-based column in bytes, 0 when unknown */
} plumb_loc;

/* Error codes shared by every module; the CLI maps them to exit codes. */
typedef enum plumb_code {
    PLUMB_OK = 0,
    PLUMB_ERR_PARSE,        /* malformed text or tensor file */
    PLUMB_ERR_INVALID,      /* well-formed but violates a constraint */
    PLUMB_ERR_UNSUPPORTED,  /* outside op set v1 (op, type, attribute) */
    PLUMB_ERR_LIMIT,        /* a size or memory limit would be exceeded */
    PLUMB_ERR_NOMEM,        /* an allocation failed */
    PLUMB_ERR_IO,           /* a file could not be read or written */
    PLUMB_ERR_CHECK,        /* a check op or agreement check failed */
    PLUMB_ERR_RUNTIME,      /* execution failed (timeout, bad input data) */
    PLUMB_ERR_USAGE,        /* bad API or command-line use */
} plumb_code;

typedef struct plumb_diag {
    plumb_code code;
    const char *file;     /* not owned; NULL when there is no file */
    plumb_loc loc;
    char msg[1024];       /* one line, no trailing newline */
} plumb_diag;

/* Record the first error only: later calls are ignored once code != OK, so
 * the error the user sees is the root cause. Returns code. */
plumb_code plumb_diag_set(plumb_diag *d, plumb_code code, plumb_loc loc,
                          const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
plumb_code plumb_diag_vset(plumb_diag *d, plumb_code code, plumb_loc loc,
                           const char *fmt, va_list ap);
/* Resets every field (file included) to the "no error" state. */
void plumb_diag_clear(plumb_diag *d);
/* Prints "FILE:LINE:COL: error: message" (parts that are unknown omitted). */
void plumb_diag_print(const plumb_diag *d, FILE *f);
const char *plumb_code_name(plumb_code code);

/* ---- growable string buffer ------------------------------------------------ */
typedef struct plumb_buf {
    char *data;       /* NUL-terminated once anything was appended */
    size_t len;       /* bytes used, excluding the NUL */
    size_t cap;       /* bytes allocated */
    bool failed;      /* an allocation failed; contents are truncated */
} plumb_buf;

void plumb_buf_init(plumb_buf *b);
void plumb_buf_free(plumb_buf *b);
void plumb_buf_append(plumb_buf *b, const char *s, size_t n);
void plumb_buf_puts(plumb_buf *b, const char *s);
void plumb_buf_printf(plumb_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Detaches the string (caller frees with plumb_free(p, len + 1)). */
char *plumb_buf_take(plumb_buf *b, size_t *len);

/* ---- JSON strings ------------------------------------------------------------ */
/* s as a JSON string literal, quotes included: '"' and '\\' escaped, control
 * bytes (below 0x20, and 0x7f) as \u00XX, valid UTF-8 copied as is, and each
 * byte that does not start a valid UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF) as \ufffd, so that any
 * byte string -- a file name, a diagnostic quoting user input -- gives valid
 * JSON. NULL is written as "". Every JSON writer of plumb goes through these
 * two. */
void plumb_json_str_append(plumb_buf *b, const char *s);
void plumb_json_str_fput(FILE *f, const char *s);

/* Reads a whole file; NULL with d set on error. Free with plumb_free(p, *len+1).
 * The result is NUL-terminated. max_bytes == 0 means no limit. */
char *plumb_read_file(const char *path, size_t max_bytes, size_t *len, plumb_diag *d);

/* Replaces path with the concatenation of parts[0..n_parts) atomically and
 * without writing through anything: the directory part of path is opened
 * (a symlink there is followed: the caller named it), the final component
 * is looked at without following it and must be absent or a regular file
 * (a symbolic link, FIFO, device, socket or directory there is an error
 * naming what it is, and nothing is opened or written). The data goes to a
 * new temporary file in that directory (O_CREAT|O_EXCL|O_NOFOLLOW), is
 * synced, given the replaced file's permission bits (set-id bits dropped) or
 * 0666 minus the umask, then renamed over the name within the directory.
 * Readers see the old file or the new one, never a torn one; on failure the
 * old file is untouched and no temporary file is left. */
bool plumb_write_file_atomic(const char *path, const void *const *parts, const size_t *lens,
                             size_t n_parts, plumb_diag *d);
/* The same relative to an open directory: name is a single component,
 * display names the file in messages, new_mode (before the umask) is the
 * mode of a file that did not exist. */
bool plumb_write_file_atomic_at(int dirfd, const char *name, const char *display, const void *const *parts,
                                const size_t *lens, size_t n_parts, unsigned new_mode, plumb_diag *d);
/* The check plumb_write_file_atomic makes before writing, alone: true if
 * path's directory opens and its final component is absent or a regular
 * file. Lets a command refuse a bad output before doing any work. */
bool plumb_check_write_target(const char *path, plumb_diag *d);
/* What a file of this st_mode is, for messages ("a symbolic link", "a FIFO",
 * "a character device", ...); NULL for a regular file. */
const char *plumb_file_kind_name(unsigned mode);
/* Creates path and every missing parent with mode (before the umask), like
 * mkdir -p. An existing directory (or a link to one) is fine. */
bool plumb_mkdir_p(const char *path, unsigned mode, plumb_diag *d);

#endif
