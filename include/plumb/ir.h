/* The IR: arena-owned modules of functions whose bodies are blocks of ops.
 * Built by the parser or by the builder calls below; checked by ir_verify;
 * printed by ir_print. */
#ifndef PLUMB_IR_H
#define PLUMB_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "dtype.h"
#include "ops.h"
#include "tensor.h"

/* A dimension is static (>= 0) or polymorphic (PLUMB_DIM_DYN) with an
 * optional declared upper bound. */
#define PLUMB_DIM_DYN (-1)
#define PLUMB_NO_BOUND (-1)

typedef struct ir_type {
    plumb_dtype dtype;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];    /* elements, or PLUMB_DIM_DYN */
    int64_t bounds[PLUMB_MAX_RANK];  /* declared bound of a PLUMB_DIM_DYN dim, else PLUMB_NO_BOUND */
    /* Non-NULL: the tuple type tuple<T1, ...> (docs/spec/tuple.md), whose
     * elements live in the module's arena; dtype, rank, dims and bounds are
     * then left zero, so code that does not know tuples walks no dims. */
    const struct ir_tuple_type *tuple;
} ir_type;

/* The elements of a tuple type, each a tensor or a tuple type. */
typedef struct ir_tuple_type {
    uint32_t n;
    const ir_type *elems;
} ir_tuple_type;

typedef enum ir_cmp_dir { IR_CMP_EQ, IR_CMP_NE, IR_CMP_LT, IR_CMP_LE, IR_CMP_GT, IR_CMP_GE } ir_cmp_dir;
/* IR_CMP_TYPE_NONE: not written; the element type decides (FLOAT for floats,
 * SIGNED for signed integers, UNSIGNED for unsigned and i1). */
/* WEAKORDER (floats): every NaN equal to every other and above +inf, -0 == +0 */
typedef enum ir_cmp_type { IR_CMP_TYPE_NONE, IR_CMP_FLOAT, IR_CMP_TOTALORDER, IR_CMP_SIGNED, IR_CMP_UNSIGNED, IR_CMP_WEAKORDER } ir_cmp_type;
typedef enum ir_precision { IR_PREC_DEFAULT, IR_PREC_HIGH, IR_PREC_HIGHEST } ir_precision;
typedef enum ir_rng_alg { IR_RNG_DEFAULT, IR_RNG_THREE_FRY, IR_RNG_PHILOX } ir_rng_alg;
/* triangular_solve's transpose_a (StableHLO's Transpose enum) */
typedef enum ir_transpose { IR_TRANSPOSE_NO_TRANSPOSE, IR_TRANSPOSE_TRANSPOSE, IR_TRANSPOSE_ADJOINT } ir_transpose;
/* fft's fft_type (StableHLO's FftType enum, docs/spec/fft.md) */
typedef enum ir_fft_type { IR_FFT_FFT, IR_FFT_IFFT, IR_FFT_RFFT, IR_FFT_IRFFT } ir_fft_type;

/* A list of integers (dimension numbers, sizes, permutations). */
typedef struct ir_ints {
    int64_t *v;
    uint32_t n;
} ir_ints;

/* stablehlo.convolution's attributes (docs/spec/conv.md), kept apart so
 * that the other ops' attributes do not grow by its fixed-size arrays. The
 * whole struct is zeroed before it is filled, so two equal attribute sets
 * compare equal with memcmp. Dimension numbers: dimension indices of lhs
 * (input_*), rhs (kernel_*) and the result (output_*); spatial lists have
 * n_spatial entries. Window lists have n_* entries: 0 when not written
 * (then every entry takes the default: stride 1, padding 0, dilation 1,
 * no reversal), else as written (the verifier wants n_spatial). */
#define IR_CONV_MAX_SPATIAL (PLUMB_MAX_RANK - 2)
typedef struct ir_conv {
    uint32_t n_spatial;
    int64_t in_batch, in_feature, in_spatial[IR_CONV_MAX_SPATIAL];
    int64_t k_in_feature, k_out_feature, k_spatial[IR_CONV_MAX_SPATIAL];
    int64_t out_batch, out_feature, out_spatial[IR_CONV_MAX_SPATIAL];
    uint32_t n_strides, n_padding, n_lhs_dilation, n_rhs_dilation, n_reversal;
    int64_t strides[IR_CONV_MAX_SPATIAL];
    int64_t pad_lo[IR_CONV_MAX_SPATIAL], pad_hi[IR_CONV_MAX_SPATIAL];
    int64_t lhs_dilation[IR_CONV_MAX_SPATIAL], rhs_dilation[IR_CONV_MAX_SPATIAL];
    uint8_t reversal[IR_CONV_MAX_SPATIAL];
    int64_t feature_group_count, batch_group_count;   /* 1 when not written */
} ir_conv;

/* An attribute plumb does not interpret, kept verbatim so that printing does
 * not lose what the user wrote (e.g. mhlo.sharding). */
typedef struct ir_named_attr {
    const char *name;
    const char *text;     /* the value's source text */
} ir_named_attr;

/* dot_general's `algorithm` attribute (StableHLO DotAlgorithm,
 * docs/spec/dotalg.md); present is false when none was written. The three
 * types are float plumb_dtypes or IR_DOTALG_TF32 (TensorFloat-32, which is
 * no element type); include/plumb/dotalg.h has the helpers. */
#define IR_DOTALG_TF32 ((int16_t)PLUMB_DTYPE_COUNT)
typedef struct ir_dot_algorithm {
    bool present;
    bool allow_imprecise_accumulation;
    int16_t lhs_precision_type, rhs_precision_type, accumulation_type;
    int64_t lhs_component_count, rhs_component_count, num_primitive_operations;
} ir_dot_algorithm;

/* Every attribute an op of the table can carry; each op uses the fields its
 * row documents in docs/format.md and leaves the rest zero. */
typedef struct ir_attrs {
    /* broadcast_in_dim, dynamic_broadcast_in_dim: broadcast_dimensions;
     * transpose: permutation; reverse: dimensions; reduce: dimensions */
    ir_ints dims;
    /* dynamic_broadcast_in_dim: operand dimensions known to expand (size 1
     * broadcast to another size) or known not to; hints, both optional */
    ir_ints known_expanding, known_nonexpanding;
    /* iota, dynamic_iota: iota_dimension; concatenate: dimension;
     * sort: dimension (default -1); get_dimension_size: dimension */
    int64_t dimension;
    ir_ints start, limit, strides;        /* slice */
    ir_ints sizes;                        /* dynamic_slice: slice_sizes; gather: slice_sizes (dynamic_gather: unused) */
    ir_ints low, high, interior;          /* pad */
    ir_cmp_dir cmp_dir;                   /* compare */
    ir_cmp_type cmp_type;                 /* compare */
    /* dot_general (dot leaves them empty) */
    ir_ints lhs_batch, rhs_batch, lhs_contract, rhs_contract;
    ir_precision precision[2];            /* dot_general, dot: lhs, rhs */
    bool has_precision;                   /* precision_config was written (dot_general, dot, convolution) */
    ir_dot_algorithm algorithm;           /* dot_general */
    ir_conv *conv;                        /* convolution; NULL for every other op */
    /* gather, dynamic_gather */
    ir_ints offset_dims, collapsed_slice_dims, operand_batching_dims,
            start_indices_batching_dims, start_index_map;
    /* scatter */
    ir_ints update_window_dims, inserted_window_dims, input_batching_dims,
            scatter_indices_batching_dims, scatter_dims_to_operand_dims;
    int64_t index_vector_dim;             /* gather, dynamic_gather, scatter */
    bool indices_are_sorted, unique_indices;  /* gather, dynamic_gather, scatter: hints only */
    bool is_stable;                       /* sort */
    ir_rng_alg rng_alg;                   /* rng_bit_generator */
    int32_t exponent_bits, mantissa_bits; /* reduce_precision */
    int64_t k;                            /* top_k */
    /* reduce_window, select_and_scatter (docs/spec/window.md): one entry
     * per dimension; empty = the spec's default (strides and dilations 1,
     * padding 0). padding holds rank pairs flattened: low0, high0, low1, ... */
    ir_ints window_dims, window_strides, base_dilations, window_dilations, padding;
    const char *callee;                   /* call: callee name without '@' */
    plumb_tensor *value;                  /* constant; *_const checks: expected */
    /* value->data when every element of value is known to have element 0's
     * bits (the parser sets it for every such literal, however written);
     * anything else (NULL, another pointer after the tensor was replaced)
     * means not known. Lets the compiler treat a splat by its one element,
     * at a cost independent of its size (ir_attrs_value_splat). Code that
     * writes a parsed constant's bytes in place sets it to NULL. */
    const void *value_splat_data;
    int64_t min_ulp, max_ulp;             /* expect_close (defaults 0 and 3) */
    double tolerance;                     /* expect_almost_eq (default 1e-4 as StableHLO) */
    /* shape_assertion: error_message, unescaped; `{k}` stands for the
     * value of operand k + 1 */
    const char *message;
    /* triangular_solve: left_side, lower, unit_diagonal, transpose_a;
     * cholesky: lower (docs/spec/linalg.md) */
    bool left_side, lower, unit_diagonal;
    ir_transpose transpose_a;
    /* batch_norm_inference/_training/_grad: epsilon (an f32 attribute, kept
     * as the f32 value it denotes) and feature_index */
    double epsilon;
    int64_t feature_index;
    /* fft: fft_type and fft_length (1 to 3 trailing dimensions) */
    ir_fft_type fft_type;
    ir_ints fft_length;
    int64_t tuple_index;                  /* get_tuple_element: index (docs/spec/tuple.md) */
    /* chlo.scan (docs/spec/control.md): dimension is the scan dimension;
     * n_inits is M, the number of inits (the last M operands) and of final
     * carries (the last M results); is_reverse walks the dimension from its
     * end; is_associative is a hint kept to print it back (has_is_associative:
     * it was written), the reference's sequential order being the semantics */
    uint32_t n_inits;
    bool is_reverse, is_associative, has_is_associative;
    /* chlo.ragged_dot (docs/spec/ragged_dot.md): its dot dimension numbers
     * are lhs_batch ... rhs_contract above; these are the rest of
     * #chlo.ragged_dot<...> */
    ir_ints lhs_ragged, rhs_group;
    ir_named_attr *extra;                 /* uninterpreted attributes */
    uint32_t n_extra;
} ir_attrs;

struct ir_op;
struct ir_block;

/* A StableHLO/MLIR debug location (`loc(...)`, docs/format.md "Debug
 * locations") resolved to what a diagnostic can show: the outermost name
 * of a NameLoc and the innermost FileLineCol (of a callsite, the callee; of
 * a fused location, the first part that has one). Strings belong to the
 * module's arena; all fields zero/NULL when nothing was written or the
 * location was `unknown`. */
typedef struct ir_debug_loc {
    const char *name;          /* NameLoc's name, or NULL */
    const char *file;          /* FileLineCol's file, or NULL */
    uint32_t line, col;        /* 1-based; 0 when there is no file */
} ir_debug_loc;

typedef struct ir_value {
    ir_type type;
    uint32_t id;               /* unique within the module */
    struct ir_op *def;         /* defining op; NULL for block arguments */
    struct ir_block *owner;    /* block whose argument this is (def == NULL) */
    uint32_t index;            /* result index in def, or argument index */
    const char *name;          /* SSA name as written (without '%'), or NULL */
    /* a block argument's debug location (`%a: T loc(...)`), or NULL;
     * always NULL for op results */
    const ir_debug_loc *dloc;
} ir_value;

/* A single-block region: function bodies, reduce bodies, sort comparators,
 * scatter update computations. */
typedef struct ir_block {
    ir_value **args;
    uint32_t n_args;
    uint32_t cap_args;
    struct ir_op *first, *last;
    uint32_t n_ops;
    struct ir_op *parent;      /* op owning this region, NULL for a function body */
} ir_block;

typedef struct ir_op {
    plumb_opcode code;
    plumb_loc loc;             /* where the op was written */
    ir_value **operands;
    uint32_t n_operands;
    ir_value **results;
    uint32_t n_results;
    ir_block *regions;
    uint32_t n_regions;
    ir_attrs a;
    struct ir_op *next, *prev;
    ir_block *parent;
    ir_debug_loc dloc;         /* the front end's location (`loc(...)`), if written */
} ir_op;

typedef struct ir_func {
    const char *name;          /* without '@' */
    bool is_public;            /* public (default) or private */
    plumb_loc loc;
    ir_block body;             /* body.args are the parameters */
    ir_type *result_types;
    uint32_t n_results;
    const char **arg_attrs;    /* per parameter: raw "{...}" text, or NULL */
    const char **result_attrs; /* per result: raw "{...}" text, or NULL */
    ir_debug_loc dloc;         /* `func.func ... { } loc(...)`; parameters: body.args[i]->dloc */
} ir_func;

typedef struct ir_module {
    plumb_arena *arena;        /* owns everything below */
    const char *name;          /* module @name, without '@'; NULL if unnamed */
    const char *attrs;         /* raw "{...}" text of `attributes`, or NULL */
    const char *filename;      /* for diagnostics; NULL if built in memory */
    ir_func **funcs;
    uint32_t n_funcs;
    uint32_t cap_funcs;
    uint32_t next_value_id;
    /* Hash index over funcs by name (open addressing, arena-owned), kept
     * by ir_func_new so that lookups cost O(1) and parsing or verifying n
     * functions is linear, not quadratic. */
    uint32_t *func_slots;      /* index into funcs + 1; 0 = empty */
    uint32_t n_func_slots;     /* power of two, or 0 */
    uint64_t *func_probes;     /* slots compared by lookups (instrumentation) */
    ir_debug_loc dloc;         /* `module { } loc(...)` */
    /* This module's identity within the process: unique, never reused
     * (assigned by ir_module_new, renewed by ir_module_touch). The
     * runtime's trace-once guard (docs/runtime.md) trusts the bytes of a
     * large baked constant only while the module's uid is unchanged; 0 =
     * no identity (a module not made by ir_module_new), never trusted. */
    uint64_t uid;
} ir_module;

/* ---- building -------------------------------------------------------------
 * Every builder call allocates from the module's arena and returns NULL only
 * when an allocation fails; the module then stays valid but incomplete. */
ir_module *ir_module_new(const char *name);
void ir_module_free(ir_module *m);
/* Call after writing the bytes of a constant (op->a.value->data) or
 * replacing a constant's tensor in place, once the module has been given to
 * a runtime: the module gets a new uid, so no runtime serves a program
 * compiled from its old contents (docs/runtime.md, "Trace-once guard").
 * Everything else (ops, types, attributes, small constants) is checked on
 * every lookup and needs no call. */
void ir_module_touch(ir_module *m);
ir_func *ir_func_new(ir_module *m, const char *name, bool is_public);
ir_func *ir_module_find_func(const ir_module *m, const char *name);   /* first of that name */
/* Slots compared by every ir_module_find_func on m so far: lets tests check
 * that lookups stay O(1) without timing anything. */
uint64_t ir_module_lookup_probes(const ir_module *m);
ir_value *ir_block_add_arg(ir_module *m, ir_block *b, const ir_type *t);
bool ir_func_set_results(ir_module *m, ir_func *f, const ir_type *types, uint32_t n);
/* Creates an op with result values of the given types (not yet in a block). */
ir_op *ir_op_new(ir_module *m, plumb_opcode code, ir_value *const *operands, uint32_t n_operands,
                 const ir_type *result_types, uint32_t n_results);
/* Adds n empty regions to op. */
bool ir_op_add_regions(ir_module *m, ir_op *op, uint32_t n);
/* The region an `if` or `case` runs, from its selector's value (an if's i1
 * predicate, a case's i32 index; docs/spec/control.md): if runs region 0
 * when the predicate is true, else region 1; case runs region `index`, and
 * the last region when index < 0 or index >= N (StableHLO "case"). One rule
 * for the reference and the runtime. */
uint32_t ir_branch_select(const ir_op *op, const void *selector);
void ir_block_append(ir_block *b, ir_op *op);
void ir_block_insert_before(ir_block *b, ir_op *before, ir_op *op);
void ir_block_remove(ir_block *b, ir_op *op);
ir_ints ir_ints_make(ir_module *m, const int64_t *v, uint32_t n);  /* n == 0 -> {NULL, 0} */
bool ir_add_extra_attr(ir_module *m, ir_attrs *a, const char *name, const char *text);

/* Debug locations. ir_debug_loc_known: a name or a file was given.
 * ir_debug_loc_copy copies from (of any module) into m's arena, so that a
 * pass cloning ops into another module keeps them; false when out of memory
 * (to is then cleared). ir_debug_loc_describe writes the suffix diagnostics
 * append, " (from file.py:41:7)", " (from NAME at file.py:41:7)" or
 * " (from NAME)", or "" when l is NULL or unknown; always NUL-terminated
 * when cap > 0. */
bool ir_debug_loc_known(const ir_debug_loc *l);
bool ir_debug_loc_copy(ir_module *m, ir_debug_loc *to, const ir_debug_loc *from);
void ir_debug_loc_describe(char *out, size_t cap, const ir_debug_loc *l);

/* Type helpers. */
ir_type ir_type_make(plumb_dtype t, uint32_t rank, const int64_t *dims);
ir_type ir_type_scalar(plumb_dtype t);
bool ir_type_equal(const ir_type *a, const ir_type *b);   /* dtype, dims and bounds */
bool ir_type_is_static(const ir_type *t);
/* True when a->value is known to be a splat (ir_attrs.value_splat_data):
 * every element has element 0's bits. */
bool ir_attrs_value_splat(const ir_attrs *a);
/* Reads a->value's bytes once and sets a->value_splat_data when every
 * element equals element 0 (the parser calls it for each literal). */
void ir_attrs_note_splat(ir_attrs *a);
/* "tensor<?x128xf32, #stablehlo.bounds<64, ?>>"; "tuple<tensor<f32>, tuple<>>" */
void ir_type_print(plumb_buf *b, const ir_type *t);

/* ---- tuples (ir/tuple.c, docs/spec/tuple.md) --------------------------------
 * A tuple value is its elements: the reference and the runtime run a
 * module through ir_tuple_flatten, which replaces every tuple-typed value
 * by its tensor leaves (depth first, left to right). Callers pass and get
 * the leaves of a tuple parameter or result in that order. */
#define IR_TUPLE_MAX_DEPTH 32      /* nesting of tuple<...> inside tuple<...> */
#define IR_TUPLE_MAX_LEAVES 65536  /* tensors in one tuple type, over every level */
static inline bool ir_type_is_tuple(const ir_type *t) { return t->tuple != NULL; }
/* A tuple type of n elements (copied into m's arena); false when out of memory. */
bool ir_type_tuple_make(ir_module *m, const ir_type *elems, uint32_t n, ir_type *out);
/* Tensor leaves of t: 1 for a tensor type, the sum over elements for a tuple. */
uint64_t ir_type_leaf_count(const ir_type *t);
/* Writes t's leaves (depth first) into out, which has room for
 * ir_type_leaf_count(t); returns the count written. */
uint64_t ir_type_leaves(const ir_type *t, ir_type *out);
/* Structural equality of two tuple types (elements by ir_type_equal). */
bool ir_tuple_type_equal(const ir_type *a, const ir_type *b);
/* Nesting depth of t: 0 for a tensor type, 1 for tuple<tensor...>, ... */
uint32_t ir_type_tuple_depth(const ir_type *t);
/* True when any parameter, result or op value of m has a tuple type. */
bool ir_module_has_tuples(const ir_module *m);
/* A new module computing what m computes with no tuple-typed value: tuple
 * and get_tuple_element vanish (a use of their result uses the elements),
 * every other op, parameter, result and region argument of tuple type is
 * replaced by its leaves in order. The copy shares m's attribute payloads
 * and strings, so it must be freed (ir_module_free) before m. m must be
 * verified. NULL with d set when out of memory. */
ir_module *ir_tuple_flatten(const ir_module *m, plumb_diag *d);

/* ---- text -------------------------------------------------------------------
 * Parses StableHLO text (docs/format.md). On error returns NULL with d set to
 * the line, column and what was expected; d->file is set to filename. */
typedef struct ir_parse_options {
    size_t struct_size;        /* sizeof(ir_parse_options) */
    uint32_t max_depth;        /* nesting limit for regions/lists; 0 = 64 */
    /* Byte limit for one dense<...> literal, checked before its payload is
     * allocated; 0 = ir_max_bytes(0) (PLUMB_MAX_BYTES env or 16 GiB). Pass
     * the limit the module will be verified and run with. */
    uint64_t max_bytes;
} ir_parse_options;

ir_module *ir_parse(const char *text, size_t len, const char *filename,
                    const ir_parse_options *opts, plumb_diag *d);
/* Prints the canonical form; print(parse(print(m))) == print(m). */
void ir_print(plumb_buf *b, const ir_module *m);
void ir_print_op(plumb_buf *b, const ir_op *op, int indent);

/* ---- verification -----------------------------------------------------------
 * Type and shape inference for every op of the table, checking the
 * constraints the StableHLO spec states. Errors name the op, its location,
 * the operand and the violated constraint. Sizes are checked for overflow and
 * against max_bytes before anything is allocated. */
typedef struct ir_verify_options {
    size_t struct_size;        /* sizeof(ir_verify_options) */
    uint64_t max_bytes;        /* per-tensor limit; 0 = PLUMB_MAX_BYTES env or 16 GiB */
} ir_verify_options;

bool ir_verify(const ir_module *m, const ir_verify_options *opts, plumb_diag *d);
/* Verifies one op in isolation (its operands' types are taken as given). */
bool ir_verify_op(const ir_op *op, const ir_module *m, uint64_t max_bytes, plumb_diag *d);
/* The effective per-tensor byte limit for an options value (env applied). */
uint64_t ir_max_bytes(uint64_t requested);

/* Walks every op of every block of m in order, descending into regions
 * before continuing; stops early when fn returns false. */
typedef bool (*ir_walk_fn)(ir_op *op, void *ud);
bool ir_walk(const ir_module *m, ir_walk_fn fn, void *ud);

#endif
