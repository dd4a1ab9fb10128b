/* The backend plugin ABI: how plumb talks to a backend it certifies.
 *
 * A backend is a shared library exporting one function,
 *
 *     const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major);
 *
 * which returns a table of function pointers for the ABI major version the
 * caller asks for, or NULL when it does not implement that major version.
 * plumb's built-in backends ("ref", the reference interpreter, and "runtime",
 * the compiled CPU runtime) are exposed through the same table. See
 * docs/abi.md for a walkthrough and examples/backend/ for a complete plugin.
 *
 * This header is self-contained: it includes only <stddef.h>, <stdint.h> and
 * <stdbool.h> and may be copied into a backend's own tree.
 *
 * ---- Version rules ---------------------------------------------------------
 *  - PLUMB_BACKEND_ABI_MAJOR changes only for incompatible changes (a field
 *    or function removed, reordered or retyped; a meaning changed). A loader
 *    rejects a table whose abi_major differs from the one it asked for.
 *  - PLUMB_BACKEND_ABI_MINOR grows when fields are APPENDED to a struct or
 *    functions APPENDED to the table. Nothing is ever inserted or removed
 *    within a major version, so every released offset stays where it is; the
 *    static assertions at the end of this file pin them.
 *  - Every struct that crosses the ABI begins with `size_t struct_size`, set
 *    by whoever fills the struct to sizeof() of the version it was compiled
 *    against. A reader must check struct_size before reading a field that was
 *    appended in a later minor version (PLUMB_BACKEND_HAS_FIELD below): a
 *    newer plumb reading an older backend's table sees a smaller struct_size
 *    and must treat the missing fields as absent, and an older plumb simply
 *    never reads past what it knows.
 *  - A value may be APPENDED to an enumeration in a minor version too (1.1:
 *    PLUMB_BACKEND_POLY_UNBOUNDED); a loader that does not know a value
 *    rejects the capabilities that use it, naming the field and the value.
 *  - Element-type bits are APPENDED too (1.3: complex, FP8/FP6/FP4, i2/i4/
 *    ui2/ui4); a loader rejects a bit the table's abi_minor does not define,
 *    and a backend of an older minor simply claims none of the new types.
 *  - A field APPENDED to a struct (1.4: capabilities.accum_small) is read
 *    only when the table's abi_minor defines it and the struct's
 *    struct_size holds it; otherwise its documented default applies.
 *  - A function APPENDED to the table (1.2: explain) is optional: a loader
 *    uses it only when the table's struct_size holds it and it is not NULL,
 *    and treats an older table as "no explanations".
 *  - A struct that the caller passes for the backend to fill (the stats)
 *    carries the caller's struct_size; the backend writes only the fields
 *    that lie within it.
 *
 * ---- Errors ----------------------------------------------------------------
 * Every function that can fail returns a plumb_backend_error pointer: NULL on
 * success, otherwise an error object allocated by the backend, which the
 * caller reads and then releases with the table's error_free. Backends never
 * report errors through errno, never print instead of returning, and never
 * abort or exit: a backend that crashes or hangs fails the certification
 * case it was running (the runner isolates every case in a worker process).
 *
 * ---- Threading -------------------------------------------------------------
 * The certification runner calls a backend instance from one thread at a
 * time; instances are independent of each other.
 */
#ifndef PLUMB_BACKEND_H
#define PLUMB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLUMB_BACKEND_ABI_MAJOR 1u
#define PLUMB_BACKEND_ABI_MINOR 4u

/* The symbol a plugin exports and its type. */
#define PLUMB_BACKEND_GET_API_SYMBOL "plumb_backend_get_api"

#if defined(__GNUC__) || defined(__clang__)
#define PLUMB_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define PLUMB_BACKEND_EXPORT
#endif

/* True when a struct filled by someone else (s points to it) is large enough
 * to hold `field` of the layout this file declares. */
#define PLUMB_BACKEND_HAS_FIELD(s, type, field) \
    ((s)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Opaque objects owned by the backend. */
typedef struct plumb_backend plumb_backend;                       /* one instance */
typedef struct plumb_backend_executable plumb_backend_executable; /* one compiled program */

/* ---- element types ----------------------------------------------------------
 * Element types travel as StableHLO spellings in buffers ("f32", "bf16", ...)
 * and as these bits in capability masks. The bit values are part of the ABI
 * and never change; new types take new bits. */
#define PLUMB_BACKEND_DT_I1    (1u << 0)
#define PLUMB_BACKEND_DT_I8    (1u << 1)
#define PLUMB_BACKEND_DT_I16   (1u << 2)
#define PLUMB_BACKEND_DT_I32   (1u << 3)
#define PLUMB_BACKEND_DT_I64   (1u << 4)
#define PLUMB_BACKEND_DT_UI8   (1u << 5)
#define PLUMB_BACKEND_DT_UI16  (1u << 6)
#define PLUMB_BACKEND_DT_UI32  (1u << 7)
#define PLUMB_BACKEND_DT_UI64  (1u << 8)
#define PLUMB_BACKEND_DT_F16   (1u << 9)
#define PLUMB_BACKEND_DT_BF16  (1u << 10)
#define PLUMB_BACKEND_DT_F32   (1u << 11)
#define PLUMB_BACKEND_DT_F64   (1u << 12)
#define PLUMB_BACKEND_DT_ALL_V1 ((1u << 13) - 1u)  /* every bit ABI 1.0 defines */
/* ABI 1.3: complex, the FP8/FP6/FP4 formats and the sub-byte integers
 * (docs/spec/complex.md, docs/spec/types.md). A table whose abi_minor is
 * below 3 may set none of these bits; a 1.0-1.2 backend keeps loading and
 * its cases of these types are reported as not claimed. */
#define PLUMB_BACKEND_DT_C64            (1u << 13)  /* complex<f32> */
#define PLUMB_BACKEND_DT_C128           (1u << 14)  /* complex<f64> */
#define PLUMB_BACKEND_DT_F8E4M3FN       (1u << 15)
#define PLUMB_BACKEND_DT_F8E5M2         (1u << 16)
#define PLUMB_BACKEND_DT_F8E4M3FNUZ     (1u << 17)
#define PLUMB_BACKEND_DT_F8E5M2FNUZ     (1u << 18)
#define PLUMB_BACKEND_DT_F8E4M3B11FNUZ  (1u << 19)
#define PLUMB_BACKEND_DT_F8E3M4         (1u << 20)
#define PLUMB_BACKEND_DT_F8E4M3         (1u << 21)
#define PLUMB_BACKEND_DT_F8E8M0FNU      (1u << 22)
#define PLUMB_BACKEND_DT_F6E2M3FN       (1u << 23)
#define PLUMB_BACKEND_DT_F6E3M2FN       (1u << 24)
#define PLUMB_BACKEND_DT_F4E2M1FN       (1u << 25)
#define PLUMB_BACKEND_DT_I2             (1u << 26)
#define PLUMB_BACKEND_DT_I4             (1u << 27)
#define PLUMB_BACKEND_DT_UI2            (1u << 28)
#define PLUMB_BACKEND_DT_UI4            (1u << 29)
#define PLUMB_BACKEND_DT_ALL_V1_3 ((1u << 30) - 1u) /* every bit ABI 1.3 defines */
/* The small float formats, f8E4M3FN (bit 15) through f4E2M1FN (bit 25):
 * capabilities.accum_small has one entry per format (ABI 1.4). */
#define PLUMB_BACKEND_N_SMALL_FLOATS 11

/* ---- errors ---------------------------------------------------------------- */
typedef enum plumb_backend_code {
    PLUMB_BACKEND_OK = 0,
    PLUMB_BACKEND_ERR_INVALID_ARGUMENT = 1, /* bad arguments, bad program text, unknown option */
    PLUMB_BACKEND_ERR_UNSUPPORTED = 2,      /* an op, element type or shape the backend does not handle */
    PLUMB_BACKEND_ERR_RESOURCE = 3,         /* out of memory or another resource */
    PLUMB_BACKEND_ERR_INTERNAL = 4,         /* a bug or an unexpected failure in the backend */
} plumb_backend_code;

typedef struct plumb_backend_error {
    size_t struct_size;        /* sizeof(plumb_backend_error) */
    int32_t code;              /* plumb_backend_code; never PLUMB_BACKEND_OK */
    const char *message;       /* one line, NUL-terminated, owned by the error object */
} plumb_backend_error;

/* ---- create / destroy ----------------------------------------------------- */

/* One backend-specific option, e.g. {"threads", "1"}. A backend rejects an
 * option it does not know with PLUMB_BACKEND_ERR_INVALID_ARGUMENT. */
typedef struct plumb_backend_option {
    size_t struct_size;        /* sizeof(plumb_backend_option) */
    const char *name;
    const char *value;
} plumb_backend_option;

typedef struct plumb_backend_create_args {
    size_t struct_size;                    /* sizeof(plumb_backend_create_args) */
    const plumb_backend_option *options;   /* may be NULL when n_options == 0 */
    size_t n_options;
    plumb_backend *backend;                /* out: the new instance */
} plumb_backend_create_args;

typedef struct plumb_backend_destroy_args {
    size_t struct_size;                    /* sizeof(plumb_backend_destroy_args) */
    plumb_backend *backend;                /* every executable of it must be freed first */
} plumb_backend_destroy_args;

/* ---- capabilities ----------------------------------------------------------
 * What the backend claims. The certification runner certifies exactly this:
 * every claimed op × element type is run against the reference, every
 * unclaimed one is reported as unsupported, and a behaviour that contradicts
 * a claim (flushing subnormals while claiming IEEE, accumulating in less
 * precision than declared, recompiling where the polymorphism claim says it
 * will not) fails the cases that show it. */

/* One supported op. name is the op's full name in plumb's op table
 * ("stablehlo.add", "chlo.erf"; docs/ops.md lists them); a bare StableHLO
 * name ("add") is accepted too. Names, not numbers, so that the op table can
 * grow without breaking plugins. dtypes is a mask of PLUMB_BACKEND_DT_* for
 * the op's primary element type (the one docs/ops.md lists per op). */
typedef struct plumb_backend_op_cap {
    size_t struct_size;        /* sizeof(plumb_backend_op_cap) */
    const char *name;
    uint32_t dtypes;
} plumb_backend_op_cap;

typedef enum plumb_backend_poly {
    /* What a backend does with polymorphic dimensions (`?` in a type, with
     * or without an upper bound in #stablehlo.bounds<...>). The values are
     * ordered: each promises everything the one before it does. In every
     * value other than NONE:
     *  - execute receives each input's actual dims in its buffer (a `?`
     *    dimension's size, 0 included) and returns each output's actual
     *    dims; an output's static dims equal the declared ones and a bounded
     *    `?` dimension is at most its bound;
     *  - an input whose `?` dimension exceeds its declared bound, or whose
     *    static dimension differs from the declared one, fails execute with
     *    PLUMB_BACKEND_ERR_INVALID_ARGUMENT, whose message names the
     *    parameter, the dimension, the size and the bound, before anything
     *    is read from the buffer;
     *  - results are those of the same program with every `?` replaced by
     *    the actual size (the checker compares them with the reference
     *    under the same bounds as a static program's).
     * The cache-stability suite (docs/certify.md) holds each claim to its
     * compile count: an entry run at many sizes within its bound. */

    /* Programs with `?` are rejected by compile with
     * PLUMB_BACKEND_ERR_UNSUPPORTED. Certification runs this backend on the
     * static programs that shape refinement (plumb refine) derives from the
     * polymorphic ones, and the certificate says so; conformance cases with
     * `?` operands are skipped as unsupported. */
    PLUMB_BACKEND_POLY_NONE = 0,
    /* Accepted; each distinct combination of actual input sizes may build a
     * new executable (counted in stats.compiles), but a combination seen
     * before must not build again. */
    PLUMB_BACKEND_POLY_PER_SHAPE = 1,
    /* Accepted; one compile per entry and declared (bounded) signature
     * serves every size within the bounds: new sizes never compile again.
     * A program with an unbounded `?` may be rejected with
     * PLUMB_BACKEND_ERR_UNSUPPORTED, or built per shape. */
    PLUMB_BACKEND_POLY_BOUNDED = 2,
    /* BOUNDED, and unbounded `?` dimensions too are served by the one
     * executable, whatever their size (buffers sized per run). ABI 1.1. */
    PLUMB_BACKEND_POLY_UNBOUNDED = 3,
} plumb_backend_poly;

typedef struct plumb_backend_capabilities {
    size_t struct_size;                    /* sizeof(plumb_backend_capabilities) */
    const plumb_backend_op_cap *ops;       /* supported ops, each named once */
    size_t n_ops;
    uint32_t polymorphic_shapes;           /* plumb_backend_poly */
    /* Float types (PLUMB_BACKEND_DT_* mask) whose subnormal inputs and
     * results are flushed to (sign-preserving) zero; 0 = IEEE everywhere. */
    uint32_t flush_subnormals;
    /* 1 if NaN payloads and signs survive data movement (copies, slices,
     * transposes, ...) bit for bit; 0 if NaNs may be canonicalized. */
    uint32_t preserves_nan_payload;
    /* 1 if the same executable on the same inputs gives bitwise identical
     * results on every run. */
    uint32_t deterministic;
    /* Accumulator precision of reductions and dot products per float input
     * type, as one PLUMB_BACKEND_DT_* bit (at least as wide as the type);
     * 0 = the input type itself. The checker's bound uses the declared
     * accumulator's unit roundoff, so claiming f32 while summing in f16
     * fails. */
    uint32_t accum_f16;
    uint32_t accum_bf16;
    uint32_t accum_f32;
    uint32_t accum_f64;
    /* ABI 1.4: the accumulator of sums and dots (dot_general, dot,
     * convolution) per small float input type: accum_small[i] is for the
     * type whose bit is PLUMB_BACKEND_DT_F8E4M3FN << i (i = 0 f8E4M3FN ...
     * 10 f4E2M1FN, the ABI 1.3 bit order). One PLUMB_BACKEND_DT_* bit: the
     * format itself when every product or partial sum is rounded to it, or
     * a wider float (f16, bf16, f32, f64) that holds every value of the
     * format. 0, and every entry of a table older than 1.4, means f32: what
     * FP8 matrix hardware accumulates in (docs/abi.md, "Capabilities").
     * Unlike the fields above, 0 does NOT mean the input type itself: a
     * backend that accumulates in the format must say so, and is then held
     * to the format's own (for long sums vacuous) bound, which the
     * certificate states. */
    uint32_t accum_small[PLUMB_BACKEND_N_SMALL_FLOATS];
} plumb_backend_capabilities;

/* sizeof(plumb_backend_capabilities) of ABI 1.0-1.3: the least struct_size
 * a loader accepts. */
#define PLUMB_BACKEND_CAPABILITIES_SIZE_1_0 ((size_t)offsetof(plumb_backend_capabilities, accum_small))

typedef struct plumb_backend_capabilities_args {
    size_t struct_size;                    /* sizeof(plumb_backend_capabilities_args) */
    plumb_backend *backend;
    /* out: owned by the backend, valid and unchanged until destroy */
    const plumb_backend_capabilities *capabilities;
} plumb_backend_capabilities_args;

/* ---- compile ---------------------------------------------------------------
 * The program is StableHLO text in plumb's canonical format (docs/format.md:
 * what `plumb fmt` prints) — one module of func.func definitions whose
 * entry's parameters are the inputs and whose results are the outputs. A
 * backend may parse it any way it likes; one linked with plumb's library may
 * use plumb's own parser and verifier (ir_parse, ir_verify in
 * include/plumb/ir.h). Compiling the same text twice should be a cache hit,
 * and the stats must say so. */
typedef struct plumb_backend_compile_args {
    size_t struct_size;                    /* sizeof(plumb_backend_compile_args) */
    plumb_backend *backend;
    const char *program;                   /* program text; need not be NUL-terminated */
    size_t program_size;                   /* bytes of program */
    const char *entry;                     /* function to run; NULL = "main" */
    plumb_backend_executable *executable;  /* out */
} plumb_backend_compile_args;

typedef struct plumb_backend_executable_free_args {
    size_t struct_size;                    /* sizeof(plumb_backend_executable_free_args) */
    plumb_backend *backend;
    plumb_backend_executable *executable;  /* NULL is a no-op */
} plumb_backend_executable_free_args;

/* ---- execute ---------------------------------------------------------------
 * Host buffers: dense, row-major, little-endian, i1 as one byte (0 or 1) per
 * element, f16/bf16 as their 16-bit patterns; ABI 1.3: complex as two
 * components (real first, 8 or 16 bytes), the FP8/FP6/FP4 formats and
 * i2/i4/ui2/ui4 as one byte per element holding the pattern in its low bits
 * (the high bits zero; a signed sub-byte value is not sign-extended). byte_size must equal the
 * element count times the element size. Buffers always carry actual dims:
 * an input of a `?` parameter has the size of this call, and the backend
 * returns each output with the size it computed (see plumb_backend_poly
 * for what happens with a size above a bound). */
typedef struct plumb_backend_buffer {
    size_t struct_size;        /* sizeof(plumb_backend_buffer) */
    const char *dtype;         /* StableHLO spelling: "i1", "i8", ..., "ui64", "f16", "bf16", "f32", "f64";
                                * ABI 1.3: "complex<f32>", "complex<f64>", "f8E4M3FN", ..., "i4", "ui2" */
    uint32_t rank;
    const int64_t *dims;       /* rank elements per dimension; may be NULL when rank == 0 */
    void *data;                /* byte_size bytes; may be NULL when byte_size == 0 */
    uint64_t byte_size;        /* bytes of data */
} plumb_backend_buffer;

/* The results of one execution, allocated by the backend and released by
 * the caller with the table's outputs_free. */
typedef struct plumb_backend_outputs {
    size_t struct_size;                    /* sizeof(plumb_backend_outputs) */
    const plumb_backend_buffer *buffers;   /* the entry's results in order */
    size_t n_buffers;
} plumb_backend_outputs;

typedef struct plumb_backend_execute_args {
    size_t struct_size;                    /* sizeof(plumb_backend_execute_args) */
    plumb_backend *backend;
    plumb_backend_executable *executable;
    const plumb_backend_buffer *inputs;    /* one per parameter of the entry; never modified */
    size_t n_inputs;
    plumb_backend_outputs *outputs;        /* out */
} plumb_backend_execute_args;

/* ---- stats -----------------------------------------------------------------
 * Counters since create or the last reset_stats. The cache-stability suite
 * reads them: the same program with new parameter values must compile once. */
typedef struct plumb_backend_stats {
    size_t struct_size;        /* set by the CALLER to sizeof(plumb_backend_stats) */
    uint64_t compiles;         /* programs actually built (cache misses) */
    uint64_t cache_hits;       /* compile calls served from a cache in memory */
    uint64_t disk_hits;        /* compile calls served from a persistent cache */
    uint64_t executions;       /* execute calls that succeeded */
    double compile_seconds;    /* wall time spent building programs, seconds */
} plumb_backend_stats;

typedef struct plumb_backend_stats_args {
    size_t struct_size;                    /* sizeof(plumb_backend_stats_args) */
    plumb_backend *backend;
    plumb_backend_stats *stats;            /* in/out: caller sets stats->struct_size */
} plumb_backend_stats_args;

typedef struct plumb_backend_reset_stats_args {
    size_t struct_size;                    /* sizeof(plumb_backend_reset_stats_args) */
    plumb_backend *backend;
} plumb_backend_reset_stats_args;

/* ---- explain (ABI 1.2, optional) ----------------------------------------------
 * Why the most recent compile call on this instance built a program. The
 * cache-stability suite calls it after every compile call that the stats
 * count as a build (a miss) and reports the answer next to the compile
 * count, so that a recompile storm names its cause (a constant baked into
 * the program, a static dimension that changed, an op added, ...).
 *
 * text: one line, e.g. "first program of @main" or "recompile 2 of @main:
 * constant 1.0e-03 became 2.0e-03 at stablehlo.broadcast_in_dim"; NULL when
 * the last compile call built nothing (served from a cache), when no compile
 * call was made yet, or when the backend cannot say. json: optionally the
 * same as one JSON object (NULL = none). Both strings are owned by the
 * backend and stay valid until the next call on this instance (any
 * function) or its destroy. */
typedef struct plumb_backend_explain_args {
    size_t struct_size;                    /* sizeof(plumb_backend_explain_args) */
    plumb_backend *backend;
    const char *text;                      /* out: NUL-terminated line, or NULL */
    const char *json;                      /* out: NUL-terminated JSON object, or NULL */
} plumb_backend_explain_args;

/* ---- the table ------------------------------------------------------------
 * Every function pointer below is required in ABI 1.0. Functions added in a
 * later minor version are appended and may be NULL in older backends
 * (check struct_size first, then the pointer). */
typedef struct plumb_backend_api {
    size_t struct_size;        /* sizeof(plumb_backend_api) of the backend's ABI version */
    uint32_t abi_major;        /* PLUMB_BACKEND_ABI_MAJOR the backend was built with */
    uint32_t abi_minor;        /* PLUMB_BACKEND_ABI_MINOR the backend was built with */
    const char *name;          /* short backend name, e.g. "mydevice" */
    const char *version;       /* the backend's own version string */

    void (*error_free)(plumb_backend_error *error);      /* NULL is a no-op */
    plumb_backend_error *(*create)(plumb_backend_create_args *args);
    plumb_backend_error *(*destroy)(plumb_backend_destroy_args *args);
    plumb_backend_error *(*capabilities)(plumb_backend_capabilities_args *args);
    plumb_backend_error *(*compile)(plumb_backend_compile_args *args);
    plumb_backend_error *(*executable_free)(plumb_backend_executable_free_args *args);
    plumb_backend_error *(*execute)(plumb_backend_execute_args *args);
    void (*outputs_free)(plumb_backend_outputs *outputs); /* NULL is a no-op */
    plumb_backend_error *(*stats)(plumb_backend_stats_args *args);
    plumb_backend_error *(*reset_stats)(plumb_backend_reset_stats_args *args);
    /* ABI 1.2; optional (NULL, or absent from a 1.0/1.1 table: read it only
     * when PLUMB_BACKEND_HAS_FIELD(api, plumb_backend_api, explain)). */
    plumb_backend_error *(*explain)(plumb_backend_explain_args *args);
} plumb_backend_api;

/* sizeof(plumb_backend_api) of ABI 1.0 and 1.1 (the same table): the least
 * struct_size a loader accepts. */
#define PLUMB_BACKEND_API_SIZE_1_0 ((size_t)offsetof(plumb_backend_api, explain))

/* The one exported entry point. Returns NULL when the backend does not
 * implement abi_major; the table is static and never freed. */
typedef const plumb_backend_api *(*plumb_backend_get_api_fn)(uint32_t abi_major);
PLUMB_BACKEND_EXPORT const plumb_backend_api *plumb_backend_get_api(uint32_t abi_major);

/* ---- released layouts (ABI 1.0; 1.1 appended an enum value, no field; 1.2
 * appended plumb_backend_api.explain and plumb_backend_explain_args; 1.3
 * appended element-type bits; 1.4 appended capabilities.accum_small), pinned
 * on LP64 targets --------------------------------------------------------------
 * If one of these trips, a released field moved: that is an ABI break. Append
 * instead, and bump PLUMB_BACKEND_ABI_MINOR. */
#ifdef __cplusplus
#define PLUMB_BACKEND_PIN(c, m) static_assert(c, m)
#else
#define PLUMB_BACKEND_PIN(c, m) _Static_assert(c, m)
#endif

/* Element-type bits are released values (ABI 1.0 and 1.3). */
PLUMB_BACKEND_PIN(PLUMB_BACKEND_DT_I1 == 0x1u && PLUMB_BACKEND_DT_F64 == 0x1000u && PLUMB_BACKEND_DT_ALL_V1 == 0x1FFFu,
                  "element-type bits (ABI 1.0)");
PLUMB_BACKEND_PIN(PLUMB_BACKEND_DT_C64 == 0x2000u && PLUMB_BACKEND_DT_C128 == 0x4000u
                  && PLUMB_BACKEND_DT_F8E4M3FN == 0x8000u && PLUMB_BACKEND_DT_F4E2M1FN == 0x2000000u
                  && PLUMB_BACKEND_DT_I2 == 0x4000000u && PLUMB_BACKEND_DT_UI4 == 0x20000000u
                  && PLUMB_BACKEND_DT_ALL_V1_3 == 0x3FFFFFFFu, "element-type bits (ABI 1.3)");

/* Enumeration values are released too: they travel as uint32_t. */
PLUMB_BACKEND_PIN(PLUMB_BACKEND_POLY_NONE == 0 && PLUMB_BACKEND_POLY_PER_SHAPE == 1 && PLUMB_BACKEND_POLY_BOUNDED == 2
                  && PLUMB_BACKEND_POLY_UNBOUNDED == 3, "plumb_backend_poly values (ABI 1.1)");

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu && SIZE_MAX == 0xFFFFFFFFFFFFFFFFu
PLUMB_BACKEND_PIN(offsetof(plumb_backend_error, code) == 8 && offsetof(plumb_backend_error, message) == 16
                  && sizeof(plumb_backend_error) == 24, "plumb_backend_error layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_option, name) == 8 && offsetof(plumb_backend_option, value) == 16
                  && sizeof(plumb_backend_option) == 24, "plumb_backend_option layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_create_args, options) == 8 && offsetof(plumb_backend_create_args, n_options) == 16
                  && offsetof(plumb_backend_create_args, backend) == 24
                  && sizeof(plumb_backend_create_args) == 32, "plumb_backend_create_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_destroy_args, backend) == 8
                  && sizeof(plumb_backend_destroy_args) == 16, "plumb_backend_destroy_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_op_cap, name) == 8 && offsetof(plumb_backend_op_cap, dtypes) == 16
                  && sizeof(plumb_backend_op_cap) == 24, "plumb_backend_op_cap layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_capabilities, ops) == 8 && offsetof(plumb_backend_capabilities, n_ops) == 16
                  && offsetof(plumb_backend_capabilities, polymorphic_shapes) == 24
                  && offsetof(plumb_backend_capabilities, flush_subnormals) == 28
                  && offsetof(plumb_backend_capabilities, preserves_nan_payload) == 32
                  && offsetof(plumb_backend_capabilities, deterministic) == 36
                  && offsetof(plumb_backend_capabilities, accum_f16) == 40
                  && offsetof(plumb_backend_capabilities, accum_bf16) == 44
                  && offsetof(plumb_backend_capabilities, accum_f32) == 48
                  && offsetof(plumb_backend_capabilities, accum_f64) == 52
                  && PLUMB_BACKEND_CAPABILITIES_SIZE_1_0 == 56, "plumb_backend_capabilities layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_capabilities, accum_small) == 56
                  && PLUMB_BACKEND_CAPABILITIES_SIZE_1_0 == 56 && PLUMB_BACKEND_N_SMALL_FLOATS == 11
                  && sizeof(plumb_backend_capabilities) == 104, "plumb_backend_capabilities layout (ABI 1.4)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_capabilities_args, backend) == 8
                  && offsetof(plumb_backend_capabilities_args, capabilities) == 16
                  && sizeof(plumb_backend_capabilities_args) == 24, "plumb_backend_capabilities_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_compile_args, backend) == 8 && offsetof(plumb_backend_compile_args, program) == 16
                  && offsetof(plumb_backend_compile_args, program_size) == 24
                  && offsetof(plumb_backend_compile_args, entry) == 32
                  && offsetof(plumb_backend_compile_args, executable) == 40
                  && sizeof(plumb_backend_compile_args) == 48, "plumb_backend_compile_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_executable_free_args, backend) == 8
                  && offsetof(plumb_backend_executable_free_args, executable) == 16
                  && sizeof(plumb_backend_executable_free_args) == 24, "plumb_backend_executable_free_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_buffer, dtype) == 8 && offsetof(plumb_backend_buffer, rank) == 16
                  && offsetof(plumb_backend_buffer, dims) == 24 && offsetof(plumb_backend_buffer, data) == 32
                  && offsetof(plumb_backend_buffer, byte_size) == 40
                  && sizeof(plumb_backend_buffer) == 48, "plumb_backend_buffer layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_outputs, buffers) == 8 && offsetof(plumb_backend_outputs, n_buffers) == 16
                  && sizeof(plumb_backend_outputs) == 24, "plumb_backend_outputs layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_execute_args, backend) == 8
                  && offsetof(plumb_backend_execute_args, executable) == 16
                  && offsetof(plumb_backend_execute_args, inputs) == 24
                  && offsetof(plumb_backend_execute_args, n_inputs) == 32
                  && offsetof(plumb_backend_execute_args, outputs) == 40
                  && sizeof(plumb_backend_execute_args) == 48, "plumb_backend_execute_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_stats, compiles) == 8 && offsetof(plumb_backend_stats, cache_hits) == 16
                  && offsetof(plumb_backend_stats, disk_hits) == 24 && offsetof(plumb_backend_stats, executions) == 32
                  && offsetof(plumb_backend_stats, compile_seconds) == 40
                  && sizeof(plumb_backend_stats) == 48, "plumb_backend_stats layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_stats_args, backend) == 8 && offsetof(plumb_backend_stats_args, stats) == 16
                  && sizeof(plumb_backend_stats_args) == 24, "plumb_backend_stats_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_reset_stats_args, backend) == 8
                  && sizeof(plumb_backend_reset_stats_args) == 16, "plumb_backend_reset_stats_args layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_api, abi_major) == 8 && offsetof(plumb_backend_api, abi_minor) == 12
                  && offsetof(plumb_backend_api, name) == 16 && offsetof(plumb_backend_api, version) == 24
                  && offsetof(plumb_backend_api, error_free) == 32 && offsetof(plumb_backend_api, create) == 40
                  && offsetof(plumb_backend_api, destroy) == 48 && offsetof(plumb_backend_api, capabilities) == 56
                  && offsetof(plumb_backend_api, compile) == 64 && offsetof(plumb_backend_api, executable_free) == 72
                  && offsetof(plumb_backend_api, execute) == 80 && offsetof(plumb_backend_api, outputs_free) == 88
                  && offsetof(plumb_backend_api, stats) == 96 && offsetof(plumb_backend_api, reset_stats) == 104
                  && PLUMB_BACKEND_API_SIZE_1_0 == 112, "plumb_backend_api layout (ABI 1.0)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_api, explain) == 112
                  && sizeof(plumb_backend_api) == 120, "plumb_backend_api layout (ABI 1.2)");
PLUMB_BACKEND_PIN(offsetof(plumb_backend_explain_args, backend) == 8
                  && offsetof(plumb_backend_explain_args, text) == 16
                  && offsetof(plumb_backend_explain_args, json) == 24
                  && sizeof(plumb_backend_explain_args) == 32, "plumb_backend_explain_args layout (ABI 1.2)");
#endif

#ifdef __cplusplus
}
#endif

#endif
