/* Internal interface of the runtime pipeline: canonical serialization and key
 * (canon.c), the thread pool and execution context (exec.c), lowering and
 * buffer planning (plan.c), the memory and disk caches (cache.c) and recompile
 * explanations (explain.c). The public API (runtime.c) ties them together. */
#ifndef PLUMB_RT_PIPELINE_H
#define PLUMB_RT_PIPELINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "rt_passes.h"

/* Changes whenever a compiled program could mean something different for the
 * same canonical serialization (kernels, passes, planning): it is part of the
 * key and of the disk header, so old cache entries are rebuilt, never used.
 * "plumb-rt " and a hash of the runtime's sources and compiler flags taken at
 * build time (build_id.c), never a hand-kept string. */
extern const char rt_runtime_version[32];
#define RT_RUNTIME_VERSION rt_runtime_version
/* Random bytes drawn when the build identity was generated: the key of the
 * disk cache's entry authentication (cache.c). */
extern const uint8_t rt_build_secret[16];
/* Version of the canonical serialization's byte layout. */
#define RT_CANON_VERSION 1u

/* ---- thread pool (exec.c) ----------------------------------------------------- */

typedef struct rt_pool rt_pool;
/* threads = total threads including the caller (>= 1). */
rt_pool *rt_pool_new(uint32_t threads, plumb_diag *d);
void rt_pool_free(rt_pool *p);
uint32_t rt_pool_threads(const rt_pool *p);

/* ---- execution context (exec.c) ------------------------------------------------- */

typedef struct rt_scratch_block {
    void *raw;                 /* as allocated */
    uint8_t *base;             /* 64-byte aligned */
    size_t cap;                /* usable bytes from base */
    size_t used;               /* bytes handed out since the last reset */
} rt_scratch_block;

struct rt_exec {
    rt_pool *pool;
    plumb_isa isa;             /* never AUTO */
    plumb_diag *d;             /* the current run's error */
    const ir_module *m;        /* the compiled module */
    FILE *check_log;
    uint32_t checks_run, checks_failed;
    uint64_t max_bytes;        /* per-tensor limit, bytes */
    /* scratch: blocks kept between runs so steady-state runs allocate nothing */
    rt_scratch_block *scratch;
    uint32_t n_scratch, cap_scratch;
    uint32_t cur_scratch;      /* block requests are taken from; every later block is unused */
    /* region evaluation: tensors of values defined inside regions, by value id,
     * kept between evaluations (a body runs once per element) */
    plumb_tensor **env;
    uint32_t n_env;
    /* the function body's value headers, by value id: what a region (a
     * while's cond and body) reads of the values it captures */
    plumb_tensor *outer;
    uint32_t n_outer;
    /* the innermost while running and its iterations completed, for the
     * timeout message (runtime/k_control.c) */
    const ir_op *loop;
    uint64_t loop_iter;
    pthread_mutex_t region_mu;  /* recursive: kernels may call rt_eval_region from chunks */
    bool region_mu_init;
    /* the current run's deadline (rt_exec_start_run); read-only while steps run */
    bool has_deadline;
    struct timespec deadline;  /* CLOCK_MONOTONIC */
    double timeout_s;          /* for the message */
    atomic_bool timed_out;     /* set by whichever thread first sees the deadline pass */
    uint64_t work_left;        /* region work units until the clock is read (under region_mu) */
    size_t scratch_total;      /* bytes of all scratch blocks (bounded by max_bytes) */
};

bool rt_exec_init(rt_exec *x, rt_pool *pool, plumb_isa isa, const ir_module *m, uint64_t max_bytes,
                  plumb_diag *d);
void rt_exec_fini(rt_exec *x);
/* Arms the deadline for one run: timeout_s seconds from now (0, negative or
 * 1e9 and more = none). */
void rt_exec_start_run(rt_exec *x, double timeout_s);
/* True once the run's deadline has passed (reads the clock; any thread). */
bool rt_deadline_passed(rt_exec *x);
/* False with the timeout error naming op once the deadline has passed. */
bool rt_check_deadline(rt_exec *x, const ir_op *op);
/* Makes every scratch allocation of the finished step reusable. */
void rt_scratch_reset(rt_exec *x);
/* Runs one op's kernel (dispatch table generated from ir/ops.def). */
bool rt_run_kernel(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out);

/* ---- canonical serialization and key (canon.c) ---------------------------------- */

/* Fields of a node, compared one by one when explaining a recompile. */
enum { RT_F_OPERANDS, RT_F_TYPES, RT_F_ATTRS, RT_F_REGIONS, RT_F_VALUE, RT_F_COUNT };

#define RT_NODE_FUNC 0xFFFFu   /* code of a function's signature node */

typedef struct rt_canon_node {
    uint32_t code;             /* plumb_opcode, or RT_NODE_FUNC */
    uint32_t func;             /* index of the function in serialization order (0 = entry) */
    uint32_t vbase;            /* index into val_node of the function's value 0 */
    uint32_t depth;            /* region nesting, 0 = function body */
    plumb_loc loc;             /* where the op was written (not part of the key) */
    const char *name;          /* function name for RT_NODE_FUNC (borrowed from the module) */
    /* The op's debug location (`loc(...)`, not part of the key): borrowed
     * from the module by rt_canon_build (dloc, NULL when none), kept as
     * text at rt_canon.origins + origin - 1 by rt_canon_keep_origins
     * (origin 0 = none), which explanations read. */
    const ir_debug_loc *dloc;
    uint32_t origin;
    /* The names an explanation shows (not part of the key): src borrows the
     * ir_op or ir_func (RT_NODE_FUNC) while serializing, and
     * rt_canon_keep_origins copies into rt_canon.origins + names - 1 an op's
     * first result's SSA name, or for a function one NUL-terminated name per
     * parameter (its loc name, jax.arg_info, else its SSA name; "" when it
     * has none), then clears src (names 0 = none). */
    const void *src;
    uint32_t names;
    size_t off[RT_F_COUNT];    /* field byte ranges in rt_canon.bytes */
    size_t len[RT_F_COUNT];
} rt_canon_node;

typedef struct rt_canon {
    uint8_t *bytes;            /* the serialization, context trailer included */
    size_t len, cap;
    rt_canon_node *nodes;
    uint32_t n_nodes, cap_nodes;
    uint32_t *val_node;        /* per canonical value (vbase + local): defining node, UINT32_MAX = argument */
    uint32_t n_vals, cap_vals;
    char *file;                /* the module's filename when serialized, or NULL */
    char *origins;             /* the nodes' debug locations, "NAME at FILE:L:C\0..." (owned: the
                                  module may be freed while the serialization is cached) */
    size_t origins_len, origins_cap;
    uint32_t *num;             /* scratch: canonical number per value id, kept between builds */
    uint32_t cap_num;
    bool failed;               /* out of memory */
} rt_canon;

/* The context every key includes besides the graph. */
typedef struct rt_key_ctx {
    plumb_isa isa;             /* level in effect (never AUTO) */
    uint32_t opt_level;
} rt_key_ctx;

/* c must be zeroed or hold an earlier build (whose buffers are reused). On
 * failure c is freed (zeroed). */
bool rt_canon_build(rt_canon *c, const ir_module *m, const ir_func *entry, const rt_key_ctx *kc,
                    plumb_diag *d);
void rt_canon_free(rt_canon *c);
/* Copies the nodes' borrowed debug locations into c->origins, while the
 * module they came from is still alive (before c is cached); done only then
 * because a cache hit must stay cheap. Out of memory loses the text, not
 * the serialization. */
void rt_canon_keep_origins(rt_canon *c);
void rt_canon_key(const rt_canon *c, uint64_t key[2]);
bool rt_canon_equal(const rt_canon *a, const rt_canon *b);
/* Rebuilds the node table of a serialization read back from disk; false when
 * the bytes are not a well-formed serialization. Takes ownership of bytes. */
bool rt_canon_from_bytes(rt_canon *c, uint8_t *bytes, size_t len);

/* Attribute tags of the ATTRS field: (u8 tag, u32 n, i64 v[n]) each. */
const char *rt_canon_attr_name(uint32_t tag);
enum { RT_A_TOLERANCE_BITS = 7 };   /* printed as a double */

/* ---- explanations (explain.c) --------------------------------------------------- */

typedef enum rt_diff_class {
    RT_DIFF_NONE,
    RT_DIFF_CONSTANT,          /* baked constant value */
    RT_DIFF_DIM,               /* static dimension (or a polymorphic dimension's bound) */
    RT_DIFF_DTYPE,             /* element type */
    RT_DIFF_ATTR,              /* attribute */
    RT_DIFF_STRUCTURE,         /* op added, removed, replaced or rewired */
    RT_DIFF_SIGNATURE,         /* entry signature */
    RT_DIFF_CONTEXT,           /* runtime version, CPU features or compile options */
} rt_diff_class;

const char *rt_diff_class_name(rt_diff_class c);
/* Nodes that differ position by position (plus the difference in count). */
uint32_t rt_canon_distance(const rt_canon *a, const rt_canon *b);
/* Explains why `now` needed a compile given the nearest cached `old`:
 * writes one line to line[] and a JSON object to json[] (both always
 * NUL-terminated, truncated if need be). */
rt_diff_class rt_explain(const rt_canon *old, const rt_canon *now, const char *entry,
                         uint32_t program, uint32_t nearest, char *line, size_t line_cap,
                         char *json, size_t json_cap);

/* ---- lowering and buffer planning (plan.c) -------------------------------------- */

typedef struct rt_step {
    const ir_op *op;           /* single op run by its kernel, or NULL */
    const rt_fused *fused;     /* fused group, or NULL */
    const struct rt_view *view;   /* a movement chain read through its view (rt_view.h), or NULL */
    const ir_op *const *ops;   /* every op of the step, program order (a run with `?` dims
                                * derives their result shapes before the step runs) */
    uint32_t n_ops;
    uint32_t memo0;            /* dynamic: index in rt_program.memo of ops[0] */
    /* dynamic: the step's key when its ops' shapes were last derived: each
     * input's rank and dims, and the values of the inputs an op of the step
     * reads as a shape operand. While a run brings the same key, every
     * header the step's ops set still holds what they would set again. */
    bool *in_vals;             /* per input: its values are in the key */
    int64_t *skey;
    uint32_t skey_len, skey_cap;   /* skey_cap 0: not keyed (a shape input too long) */
    bool skey_valid;
    bool all_fixed;            /* every op of the step has static types */
    plumb_tensor **in;
    uint32_t n_in;
    plumb_tensor **out;
    uint32_t n_out;
    ir_value *const *out_vals; /* the values out[] hold */
} rt_step;

/* The last shapes ir_shape_infer derived for one op: its key (each
 * operand's rank and dims, and the values of the shape operands it reads)
 * and the result headers. A run whose key is the same gets the same result
 * shapes and passed the same checks, so it reuses them. */
typedef struct rt_shape_memo {
    int64_t *key;
    uint32_t key_len, key_cap;     /* key_cap 0: never memoized (a shape operand too long) */
    plumb_tensor *out;             /* the result headers (data NULL) */
    bool valid;
    bool fixed;                    /* every operand and result type static: the result
                                    * headers hold their dims from the compile on */
} rt_shape_memo;

typedef struct rt_buffer {
    void *raw;                 /* as allocated */
    void *data;                /* 64-byte aligned */
    size_t bytes;              /* planned size */
} rt_buffer;

typedef struct rt_program {
    ir_module *m;              /* the lowered module (one function, passes applied) */
    ir_func *f;
    char *opt_text;            /* canonical text of m after passes (what the disk cache stores) */
    size_t opt_text_len;
    plumb_arena *arena;        /* groups, steps, tensor headers */
    rt_step *steps;
    uint32_t n_steps;
    plumb_tensor *hdr;         /* per value id: the tensor header kernels see */
    uint32_t n_values;
    rt_buffer *bufs;
    uint32_t n_bufs, cap_bufs;
    uint64_t planned_bytes;    /* sum of planned buffer sizes, bytes */
    uint32_t n_params;
    uint32_t *param_ids;       /* value id of each parameter */
    uint32_t n_outputs;
    uint32_t *out_ids;         /* value id of each returned value */
    bool *out_direct;          /* per result: a step writes it straight into the caller's tensor */
    void **out_planned;        /* per result: its value's planned data (restored after a run) */
    /* `?` dimensions (docs/runtime.md, "Polymorphic shapes"): each run derives
     * every value's shape with ir_shape_infer, step by step */
    bool dynamic;              /* some value's type has a `?` dimension */
    uint32_t *buf_of;          /* dynamic: per value id, its buffer + 1 (0: none) */
    const plumb_tensor **dyn_in;   /* dynamic: operand headers of the op being inferred */
    ir_type *dyn_types;        /* dynamic: its result types */
    rt_shape_memo *memo;       /* dynamic: per op of the steps, in step order */
    int64_t *memo_key;         /* dynamic: the key being built (the largest key_cap) */
    uint64_t buf_grows;        /* dynamic: buffers grown by runs (unbounded `?` values) */
    rt_exec x;                 /* execution context, kept between runs */
} rt_program;

typedef struct rt_compile_opts {
    uint32_t opt_level;
    plumb_isa isa;
    uint64_t max_bytes;
    rt_pool *pool;
    bool want_text;            /* keep opt_text for the disk cache */
} rt_compile_opts;

/* Lowers entry of m: copies it with every func.call inlined, runs the passes,
 * fuses and plans buffers. */
rt_program *rt_program_compile(const ir_module *m, const ir_func *entry, const rt_compile_opts *o,
                               plumb_diag *d);
/* Builds a program from the canonical text of an already optimized module
 * (a disk-cache entry): no passes run. NULL (d set) if the text is unusable. */
rt_program *rt_program_load(const char *text, size_t len, const rt_compile_opts *o, plumb_diag *d);
void rt_program_free(rt_program *p);
/* Checks inputs, allocates fresh result tensors and runs every step (the
 * steps write the results straight into them). */
bool rt_program_run(rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                    plumb_tensor **outputs, uint32_t n_outputs, FILE *check_log,
                    uint32_t *checks_failed, plumb_diag *d);
/* The same into caller tensors, checked first: type of each result, no
 * memory shared with an input or another output. */
bool rt_program_run_into(rt_program *p, const char *entry, plumb_tensor *const *inputs, uint32_t n_inputs,
                         plumb_tensor *const *outputs, uint32_t n_outputs, FILE *check_log,
                         uint32_t *checks_failed, plumb_diag *d);

/* ---- disk cache (cache.c) --------------------------------------------------------- */

/* Looks up key in dir (opened with rt_disk_dir_open's checks; the entry
 * without following a link, and only if it is a regular file). On a hit confirmed against the stored canonical
 * serialization (byte for byte) returns the stored optimized text (free with
 * plumb_free(p, *len + 1)). A missing, corrupt or mismatching entry is a miss;
 * *why (may be NULL) then says what was wrong ("" for a plain miss). */
char *rt_disk_load(const char *dir, const uint64_t key[2], const rt_canon *c, const rt_key_ctx *kc,
                   size_t *len, const char **why);
/* Stores an entry atomically (temporary file, then rename, never through a
 * link: plumb_write_file_atomic_at), creating dir if needed. Failures are
 * returned, never fatal: the cache is an optimization. */
bool rt_disk_store(const char *dir, const uint64_t key[2], const rt_canon *c, const rt_key_ctx *kc,
                   const char *text, size_t len, plumb_diag *d);
/* Opens the cache directory (with create, making it and its missing parents
 * 0700 first) and checks that it can be trusted: not writable by every user,
 * not writable by its group unless PLUMB_CACHE_SHARED=1, owned by this user
 * or root unless PLUMB_CACHE_SHARED=1. Returns an O_DIRECTORY descriptor, or
 * -1 with msg saying what is wrong (errno ENOENT if it does not exist). */
int rt_disk_dir_open(const char *dir, bool create, char *msg, size_t cap);
/* rt_disk_dir_open(dir, true) for a runtime being created: false after one
 * "plumb: warning: disk cache disabled: ..." line on log (if not NULL). */
bool rt_disk_dir_usable(const char *dir, FILE *log);
/* The file an entry lives in: DIR/KEYHEX.plumbc. */
bool rt_disk_path(const char *dir, const uint64_t key[2], char *out, size_t cap);
/* Least-recently-used eviction: while the entries (DIR/KEYHEX.plumbc regular
 * files, nothing else) total more than max_bytes, removes the one used
 * longest ago (a hit refreshes an entry's modification time), never the
 * entry keep (may be NULL: the one just written). Returns how many were
 * removed; *total_out (may be NULL) gets the bytes left. Failures only mean
 * less is evicted. */
uint32_t rt_disk_evict(const char *dir, uint64_t max_bytes, const uint64_t keep[2], uint64_t *total_out);

#endif
