/* What `plumb cache` and `plumb explain` need from the runtime: reading the
 * disk cache's entries without serving them (cache_admin.c), and explaining
 * the difference between two programs as a recompile would (explain_pair.c).
 * Kept apart from rt_pipeline.h so the CLI sees plain structs, not the
 * canonical serialization. */
#ifndef PLUMB_RT_CACHE_ADMIN_H
#define PLUMB_RT_CACHE_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plumb/ir.h"

/* What an entry is to this build. Only VALID entries can ever be served;
 * prune removes every other state. */
typedef enum rt_cache_state {
    RT_CACHE_VALID,            /* this build's entry: header, sizes and mac check out */
    RT_CACHE_STALE,            /* written by another build identity or format version */
    RT_CACHE_FOREIGN,          /* not this entry's file: not a plumb cache entry, or its
                                * header's key is not the key in its name */
    RT_CACHE_CORRUPT,          /* truncated, wrong sizes, mac fails, or (verify) the body
                                * does not read back */
} rt_cache_state;

const char *rt_cache_state_name(rt_cache_state s);

typedef struct rt_cache_entry {
    char file[40];             /* KEYHEX.plumbc */
    uint64_t bytes;            /* file size */
    struct timespec used;      /* modification time: the last write or hit */
    uint64_t ino;              /* the file judged: removal skips a file renamed over it since */
    rt_cache_state state;
    char reason[256];          /* why it is not valid ("" when valid) */
    char runtime[32];          /* build identity in the header ("" if unreadable) */
    uint32_t isa, opt_level;   /* compile context in the header */
    const char *isa_name;      /* "portable", "avx2", "avx512" ("unknown" otherwise) */
    char module[96];           /* module @name of the stored program, "" if none */
    char func[96];             /* its function (the entry it was compiled for) */
    bool deep;                 /* verify rebuilt its stored program */
} rt_cache_entry;

typedef struct rt_cache_listing {
    rt_cache_entry *v;
    size_t n, cap;
    uint32_t ignored;          /* directory members that are not entries (other names,
                                * links, folders): never read, never removed */
} rt_cache_listing;

/* The directory the runtime uses when none is given: PLUMB_CACHE_DIR (the
 * runtime's own default, runtime.c), NULL when unset or empty. */
const char *rt_cache_default_dir(void);

/* Reads every entry of dir (opened with the runtime's trust rule,
 * rt_disk_dir_open, never creating it): header, build identity, sizes and
 * mac. With verify, every entry that passes also gets its stored graph
 * parsed back and hashed (it must be the entry's key), and the first
 * `sample` of those in name order (UINT32_MAX = all) have their stored
 * program rebuilt: it must parse, verify, print back to the same text byte
 * for byte and build. Entries come out sorted by name. Returns false with
 * msg set (the directory is missing, cannot be read or is not trusted; out
 * of memory); *missing tells the first apart. Free with
 * rt_cache_listing_free. */
bool rt_cache_scan(const char *dir, bool verify, uint32_t sample, rt_cache_listing *out, bool *missing,
                   char *msg, size_t cap);
void rt_cache_listing_free(rt_cache_listing *l);

/* Removes the entries of l that are not valid (all = every entry), each only
 * if it is still the regular file that was judged (never a link, never
 * anything not named like an entry, never an entry a runtime has rewritten
 * since: writers rename a new file over the name). *removed and *freed count what went;
 * false with msg set when the directory cannot be opened or an entry cannot
 * be removed (the others are still tried). */
bool rt_cache_remove(const char *dir, const rt_cache_listing *l, bool all, uint32_t *removed, uint64_t *freed,
                     char *msg, size_t cap);

/* The runtime's least-recently-used eviction (rt_disk_evict) down to
 * max_bytes; returns how many entries went, *left the bytes that remain. */
uint32_t rt_cache_evict(const char *dir, uint64_t max_bytes, uint64_t *left);

/* Explains what the runtime's cache sees as different between entry fa of
 * a and entry fb of b: the explanation a recompile of b after a would log
 * (line, and a JSON object), or *same = true when b would be a cache hit.
 * False with d set when a module cannot be serialized. */
bool rt_explain_modules(const ir_module *a, const ir_func *fa, const ir_module *b, const ir_func *fb, bool *same,
                        char *line, size_t line_cap, char *json, size_t json_cap, plumb_diag *d);

#endif
