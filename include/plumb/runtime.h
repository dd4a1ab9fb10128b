/* The compiled runtime: plumb's fast CPU backend for op set v1.
 *
 * Pipeline: verified module -> canonical serialization -> 128-bit key ->
 * cache lookup -> compile on a miss (passes, fusion, buffer planning) ->
 * executable. Parameter values are never part of the key, so running the same
 * program on new inputs never compiles; a miss after an entry's first compile
 * is explained (the nearest cached program of the entry and the first
 * difference). A `?` dimension is in the key by its bound only: one compile
 * runs every size within the bounds (unbounded `?`: every size). See
 * docs/runtime.md ("Polymorphic shapes"). */
#ifndef PLUMB_RUNTIME_H
#define PLUMB_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "ir.h"
#include "tensor.h"

typedef struct plumb_runtime plumb_runtime;
typedef struct plumb_executable plumb_executable;

/* Instruction-set levels the kernels dispatch on. */
typedef enum plumb_isa {
    PLUMB_ISA_AUTO = 0,      /* the best the CPU supports */
    PLUMB_ISA_PORTABLE,      /* plain C */
    PLUMB_ISA_AVX2,          /* AVX2 + FMA */
    PLUMB_ISA_AVX512,        /* AVX-512 F/BW/DQ/VL */
} plumb_isa;

typedef struct plumb_runtime_options {
    size_t struct_size;          /* sizeof(plumb_runtime_options) */
    uint32_t threads;            /* worker threads; 0 = online cores */
    plumb_isa isa;               /* kernel level; AUTO = detect (PLUMB_ISA env overrides) */
    uint32_t opt_level;          /* 0 = no passes, no fusion; 1 = passes; 2 = passes + fusion (default when 0 is not set explicitly: use PLUMB_RT_OPT_DEFAULT) */
    uint32_t max_programs_per_entry;  /* cap on distinct programs per module and entry (a program served
                                    from the disk cache is not a recompile and never refused); 0 = none */
    bool error_on_recompile;     /* any compile of a module's entry after its first is an error (disk hits are not) */
    uint64_t max_bytes;          /* per-tensor limit; 0 = plumb_max_bytes(0) */
    const char *cache_dir;       /* persistent cache directory; NULL = PLUMB_CACHE_DIR env, or none; "" = none */
    FILE *log;                   /* recompile explanations (also when PLUMB_LOG=recompiles); NULL = none unless env;
                                    must stay open until plumb_runtime_destroy, which may write a summary */
    double timeout_s;            /* wall-clock limit of each run, seconds; 0 = none (docs/runtime.md, Limits) */
    uint64_t cache_max_bytes;    /* disk cache size limit, least recently used entries evicted first;
                                    0 = PLUMB_CACHE_MAX_BYTES env, else 1 GiB; UINT64_MAX = none */
    const char *contract_file;   /* compile contract (docs/contracts.md, include/plumb/contract.h); NULL =
                                    PLUMB_CONTRACT env, or none; "" = none. A compile it forbids fails with PLUMB_ERR_LIMIT */
    FILE *summary;               /* per-entry summary of recompile causes when the runtime is destroyed;
                                    NULL = the log when PLUMB_LOG=recompiles, else none */
    bool summary_json;           /* the summary as JSON lines (also with PLUMB_LOG=recompiles:json) */
    const char *policy;          /* canonicalization policies applied before the key, comma-separated:
                                    "lift" (float scalar/splat constants become hidden parameters),
                                    "lift-int" (integer ones too), "none"; NULL = PLUMB_POLICY env, or none
                                    (docs/policies.md). An unknown word fails plumb_runtime_create */
} plumb_runtime_options;

#define PLUMB_RT_OPT_DEFAULT 2

/* Counters, per runtime or per entry. */
typedef struct plumb_runtime_stats {
    size_t struct_size;          /* sizeof(plumb_runtime_stats) */
    uint64_t compiles;           /* programs built (memory-cache misses) */
    uint64_t cache_hits;         /* lookups served from memory */
    uint64_t disk_hits;          /* misses served from the disk cache */
    uint64_t runs;               /* executions */
    double compile_seconds;      /* wall time spent compiling, seconds */
    double execute_seconds;      /* wall time spent executing, seconds */
    uint32_t programs;           /* distinct programs currently cached */
    uint64_t disk_rejects;       /* disk entries found but not served (corrupt, edited, other build...):
                                    each is logged with its reason and rebuilt */
    uint64_t disk_evictions;     /* disk entries removed to keep the cache under cache_max_bytes */
    uint64_t recompiles;         /* programs built for an entry that already had one (each explained;
                                    what the gates count; disk hits never count) */
    uint64_t trace_hits;         /* of cache_hits, those the trace-once guard served without comparing
                                    the bytes of large constants (docs/runtime.md) */
} plumb_runtime_stats;

/* Fills opts with defaults (struct_size set). */
void plumb_runtime_options_init(plumb_runtime_options *opts);

plumb_runtime *plumb_runtime_create(const plumb_runtime_options *opts, plumb_diag *d);
void plumb_runtime_destroy(plumb_runtime *rt);

/* Compiles (or finds in the cache) function `entry` (NULL = "main") of a
 * verified module. The executable is owned by the runtime's cache and stays
 * valid until plumb_runtime_destroy; the module may be freed after the call. */
plumb_executable *plumb_runtime_compile(plumb_runtime *rt, const ir_module *m,
                                        const char *entry, plumb_diag *d);

/* Runs an executable. Inputs must match the entry's parameters (checked
 * before any work: element type, rank, static dims, and each `?` dim within
 * its bound — "@main parameter 0 (%x) dimension 0: size 80 exceeds its
 * bound 64", PLUMB_ERR_USAGE); they are never modified. outputs receives
 * n_outputs newly allocated tensors with this run's dims (plumb_tensor_free
 * each; with `?` dims a result is allocated when the run knows its shape). Check ops in the program are
 * evaluated; failures are counted in *checks_failed (may be NULL) and
 * described on opts->log or stderr. A run that passes the runtime's
 * timeout_s fails with PLUMB_ERR_RUNTIME ("timeout: ..."); one whose
 * memory would pass max_bytes fails with PLUMB_ERR_LIMIT (docs/runtime.md,
 * Limits).
 *
 * Every run allocates its results; writing into fresh pages costs several
 * times the write itself, so code that runs an executable repeatedly should
 * use plumb_executable_run_into. */
bool plumb_executable_run(plumb_executable *ex, plumb_tensor *const *inputs, uint32_t n_inputs,
                          plumb_tensor **outputs, uint32_t n_outputs,
                          uint32_t *checks_failed, plumb_diag *d);

/* Runs an executable into tensors the caller owns and keeps between runs:
 * outputs[i] must have result i's element type and dims, with data holding
 * exactly its bytes (plumb_tensor_new gives such a tensor); for a result
 * with `?` dims, the dims this run gives it (checked before anything
 * writes that output; a mismatch is PLUMB_ERR_USAGE). The kernels
 * write each result straight into outputs[i]->data; nothing is allocated
 * (the executable keeps its planned intermediate buffers between runs).
 * An output sharing any byte with an input or with another output is
 * rejected (PLUMB_ERR_USAGE) before any work, as is a wrong type or size.
 * Inputs are never modified. On failure the outputs' contents are
 * unspecified. */
bool plumb_executable_run_into(plumb_executable *ex, plumb_tensor *const *inputs, uint32_t n_inputs,
                               plumb_tensor *const *outputs, uint32_t n_outputs,
                               uint32_t *checks_failed, plumb_diag *d);
uint32_t plumb_executable_num_outputs(const plumb_executable *ex);

/* compile (through the cache) + run in one call. */
bool plumb_runtime_run(plumb_runtime *rt, const ir_module *m, const char *entry,
                       plumb_tensor *const *inputs, uint32_t n_inputs,
                       plumb_tensor **outputs, uint32_t n_outputs,
                       uint32_t *checks_failed, plumb_diag *d);

/* Counters for one entry or, with entry == NULL, the whole runtime. Entries
 * are kept per module (`module @NAME`) and function: "MODULE/NAME" names one,
 * "NAME" sums every module's entry of that name. False if there is none. */
bool plumb_runtime_stats_get(const plumb_runtime *rt, const char *entry, plumb_runtime_stats *out);
void plumb_runtime_stats_reset(plumb_runtime *rt);
/* Drops every cached program (counters are kept). */
void plumb_runtime_cache_clear(plumb_runtime *rt);

/* The explanation of the most recent recompile, as one line of text and as a
 * JSON object; NULL when there was none. Valid until the next compile. The
 * line names every difference from the nearest cached program, grouped by
 * cause; the JSON object lists them under "differences". */
const char *plumb_runtime_last_explanation(const plumb_runtime *rt);
const char *plumb_runtime_last_explanation_json(const plumb_runtime *rt);

/* The 128-bit cache key of a module's entry under this runtime's version,
 * CPU features and options (what the cache uses). */
bool plumb_runtime_key(const plumb_runtime *rt, const ir_module *m, const char *entry,
                       uint64_t key[2], plumb_diag *d);

/* Entries seen so far (each module's function compiled through this
 * runtime), for per-entry reports: entry i's module name (NULL when the
 * module is unnamed), function name (both valid while the runtime lives) and
 * counters. False when i is out of range. */
uint32_t plumb_runtime_entry_count(const plumb_runtime *rt);
bool plumb_runtime_entry_stats(const plumb_runtime *rt, uint32_t i, const char **module, const char **name,
                               plumb_runtime_stats *out);

#endif
