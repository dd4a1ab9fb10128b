/* Canonical serialization of an entry and every function it calls, and the
 * cache key (XXH3-128 of it).
 *
 * What is in it: per op its opcode, operands as canonical value numbers
 * (parameters 0..n-1, then results and region arguments in walk order, per
 * function — the printer's numbering, so SSA names never matter), result
 * types (element type, static dims, the bound of each `?` dim), the
 * attributes that op interprets (normalized: defaults written out, so a
 * spelled-out default and an omitted one are the same program), the bytes of
 * baked constants, regions; called functions by first-call order; then a
 * trailer with the serialization version, RT_RUNTIME_VERSION, the ISA level
 * in effect and the optimization level.
 *
 * What is not: value names, function names (calls are inlined), source
 * locations, uninterpreted attributes (e.g. sharding annotations; the
 * runtime generates the same code with or without them), the thread count
 * (results are bitwise identical across thread counts, docs/runtime.md) and
 * parameter values. */
#include <string.h>
#include <xxhash.h>

#include "rt_guard.h"

/* Splat constants larger than this are keyed by their one element. */
#define RT_SPLAT_KEY_BYTES 4096u
#define RT_END 0xFFFFFFFEu   /* ends a region's nodes */
#define RT_TRAILER 0x58544301u

static const char *const attr_names[] = {
    "", "dims", "dimension", "start", "limit", "strides", "sizes", "tolerance",
    "low", "high", "interior", "comparison_direction", "compare_type",
    "lhs_batching_dims", "rhs_batching_dims", "lhs_contracting_dims", "rhs_contracting_dims",
    "precision", "offset_dims", "collapsed_slice_dims", "operand_batching_dims",
    "start_indices_batching_dims", "start_index_map", "index_vector_dim", "indices_are_sorted",
    "update_window_dims", "inserted_window_dims", "input_batching_dims",
    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "unique_indices",
    "is_stable", "rng_algorithm", "exponent_bits", "mantissa_bits", "k", "callee",
    "min_ulp_difference", "max_ulp_difference", "known_expanding_dimensions",
    "known_nonexpanding_dimensions", "error_message",
    "window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding",
    "left_side", "lower", "unit_diagonal", "transpose_a", "convolution",
    "fft_type", "fft_length",
    "epsilon", "feature_index", "algorithm", "n_inits", "is_reverse", "lhs_ragged_dims", "rhs_group_dims",
};
enum {
    A_DIMS = 1, A_DIMENSION, A_START, A_LIMIT, A_STRIDES, A_SIZES, A_TOLERANCE, A_LOW, A_HIGH,
    A_INTERIOR, A_CMP_DIR, A_CMP_TYPE, A_LHS_BATCH, A_RHS_BATCH, A_LHS_CONTRACT, A_RHS_CONTRACT,
    A_PRECISION, A_OFFSET_DIMS, A_COLLAPSED, A_OPERAND_BATCHING, A_START_BATCHING, A_START_INDEX_MAP,
    A_INDEX_VECTOR_DIM, A_SORTED, A_UPDATE_WINDOW, A_INSERTED_WINDOW, A_INPUT_BATCHING,
    A_SCATTER_BATCHING, A_SCATTER_TO_OPERAND, A_UNIQUE, A_STABLE, A_RNG, A_EXP_BITS, A_MANT_BITS,
    A_K, A_CALLEE, A_MIN_ULP, A_MAX_ULP, A_KNOWN_EXPANDING, A_KNOWN_NONEXPANDING, A_MESSAGE,
    A_WINDOW_DIMS, A_WINDOW_STRIDES, A_BASE_DILATIONS, A_WINDOW_DILATIONS, A_PADDING,
    A_LEFT_SIDE, A_LOWER, A_UNIT_DIAGONAL, A_TRANSPOSE_A, A_CONV, A_FFT_TYPE, A_FFT_LENGTH, A_EPSILON, A_FEATURE_INDEX, A_ALGORITHM, A_N_INITS, A_IS_REVERSE, A_LHS_RAGGED, A_RHS_GROUP, A_COUNT
};
_Static_assert((int)A_TOLERANCE == (int)RT_A_TOLERANCE_BITS, "tolerance tag");
_Static_assert(sizeof attr_names / sizeof attr_names[0] == A_COUNT, "attribute names");

const char *rt_canon_attr_name(uint32_t tag)
{
    return tag < A_COUNT ? attr_names[tag] : "?";
}

/* ---- byte buffer ---------------------------------------------------------------- */

static bool reserve(rt_canon *c, size_t n)
{
    if (c->failed)
        return false;
    if (c->len + n <= c->cap)
        return true;
    size_t ncap = c->cap ? c->cap : 1024;
    while (ncap < c->len + n) {
        if (ncap > SIZE_MAX / 2) {
            c->failed = true;
            return false;
        }
        ncap *= 2;
    }
    uint8_t *nb = plumb_realloc(c->bytes, c->cap, ncap);
    if (!nb) {
        c->failed = true;
        return false;
    }
    c->bytes = nb;
    c->cap = ncap;
    return true;
}

static void put(rt_canon *c, const void *p, size_t n)
{
    if (n && reserve(c, n)) {
        memcpy(c->bytes + c->len, p, n);
        c->len += n;
    }
}

/* Fixed-size appends inline to a store: the serialization runs on every
 * lookup, so a cache hit costs about as much as these. */
static inline void put_u32(rt_canon *c, uint32_t v)
{
    if (c->len + 4 <= c->cap) {
        memcpy(c->bytes + c->len, &v, 4);
        c->len += 4;
    } else {
        put(c, &v, 4);
    }
}

static inline void put_i64(rt_canon *c, int64_t v)
{
    if (c->len + 8 <= c->cap) {
        memcpy(c->bytes + c->len, &v, 8);
        c->len += 8;
    } else {
        put(c, &v, 8);
    }
}

static void put_u64(rt_canon *c, uint64_t v) { put_i64(c, (int64_t)v); }

static void put_type(rt_canon *c, const ir_type *t)
{
    put_u32(c, (uint32_t)t->dtype);
    put_u32(c, t->rank);
    for (uint32_t i = 0; i < t->rank && i < PLUMB_MAX_RANK; i++) {
        put_i64(c, t->dims[i]);
        put_i64(c, t->dims[i] == PLUMB_DIM_DYN ? t->bounds[i] : 0);
    }
}

static void attr_ints(rt_canon *c, uint32_t *n, uint8_t tag, const int64_t *v, uint32_t k)
{
    put(c, &tag, 1);
    put_u32(c, k);
    for (uint32_t i = 0; i < k; i++)
        put_i64(c, v[i]);
    (*n)++;
}

static void attr_list(rt_canon *c, uint32_t *n, uint8_t tag, ir_ints l)
{
    attr_ints(c, n, tag, l.v, l.n);
}

static void attr_int(rt_canon *c, uint32_t *n, uint8_t tag, int64_t v)
{
    attr_ints(c, n, tag, &v, 1);
}

/* ---- nodes and values --------------------------------------------------------------- */

static rt_canon_node *new_node(rt_canon *c)
{
    if (c->failed)
        return NULL;
    if (c->n_nodes == c->cap_nodes) {
        uint32_t ncap = c->cap_nodes ? c->cap_nodes * 2 : 64;
        rt_canon_node *nn = plumb_realloc(c->nodes, (size_t)c->cap_nodes * sizeof *nn, (size_t)ncap * sizeof *nn);
        if (!nn) {
            c->failed = true;
            return NULL;
        }
        c->nodes = nn;
        c->cap_nodes = ncap;
    }
    rt_canon_node *nd = &c->nodes[c->n_nodes++];
    memset(nd, 0, sizeof *nd);
    return nd;
}

static bool add_val(rt_canon *c, uint32_t node)
{
    if (c->failed)
        return false;
    if (c->n_vals == c->cap_vals) {
        uint32_t ncap = c->cap_vals ? c->cap_vals * 2 : 64;
        uint32_t *nv = plumb_realloc(c->val_node, (size_t)c->cap_vals * sizeof *nv, (size_t)ncap * sizeof *nv);
        if (!nv) {
            c->failed = true;
            return false;
        }
        c->val_node = nv;
        c->cap_vals = ncap;
    }
    c->val_node[c->n_vals++] = node;
    return true;
}

typedef struct ser {
    rt_canon *c;
    const ir_module *m;
    uint32_t *num;           /* per value id: local number + 1, 0 = not yet numbered (rt_canon.num) */
    uint32_t n_ids;
    uint32_t next_local;     /* next local number in the current function */
    uint32_t vbase;
    uint32_t func;
    const ir_func **funcs;   /* functions in serialization order */
    uint32_t n_funcs, cap_funcs;
    plumb_diag *d;
    bool bad;                /* the module refers to something that does not exist */
    bool guard;              /* the trace-once guard's form: large constants by reference */
    uint32_t n_refs;         /* constants written by reference */
} ser;

static bool number(ser *s, const ir_value *v, uint32_t node)
{
    if (v->id >= s->n_ids) {
        s->bad = true;
        return false;
    }
    s->num[v->id] = ++s->next_local;
    return add_val(s->c, node);
}

static uint32_t func_index(ser *s, const ir_func *f)
{
    for (uint32_t i = 0; i < s->n_funcs; i++)
        if (s->funcs[i] == f)
            return i;
    if (s->n_funcs == s->cap_funcs) {
        uint32_t ncap = s->cap_funcs * 2;
        const ir_func **nf = plumb_malloc((size_t)ncap * sizeof *nf);
        if (!nf) {
            s->c->failed = true;
            return 0;
        }
        memcpy(nf, s->funcs, (size_t)s->n_funcs * sizeof *nf);
        if (s->cap_funcs > 8)   /* the first 8 live on the caller's stack */
            plumb_free(s->funcs, (size_t)s->cap_funcs * sizeof *s->funcs);
        s->funcs = nf;
        s->cap_funcs = ncap;
    }
    s->funcs[s->n_funcs] = f;
    return s->n_funcs++;
}

static ir_cmp_type cmp_type_of(const ir_op *op)
{
    if (op->a.cmp_type != IR_CMP_TYPE_NONE || op->n_operands == 0)
        return op->a.cmp_type;
    plumb_dtype t = op->operands[0]->type.dtype;
    if (plumb_dtype_is_float(t))
        return IR_CMP_FLOAT;
    return plumb_dtype_is_signed(t) ? IR_CMP_SIGNED : IR_CMP_UNSIGNED;
}

/* The attributes op interprets, normalized. */
static void put_attrs(ser *s, const ir_op *op)
{
    rt_canon *c = s->c;
    const ir_attrs *a = &op->a;
    size_t at = c->len;
    uint32_t n = 0;
    put_u32(c, 0);   /* count, patched below */
    switch (op->code) {
    case PLUMB_OP_REDUCE_PRECISION:
        attr_int(c, &n, A_EXP_BITS, a->exponent_bits);
        attr_int(c, &n, A_MANT_BITS, a->mantissa_bits);
        break;
    case PLUMB_OP_TRIANGULAR_SOLVE:
        attr_int(c, &n, A_LEFT_SIDE, a->left_side);
        attr_int(c, &n, A_LOWER, a->lower);
        attr_int(c, &n, A_UNIT_DIAGONAL, a->unit_diagonal);
        attr_int(c, &n, A_TRANSPOSE_A, a->transpose_a);
        break;
    case PLUMB_OP_CHOLESKY:
        attr_int(c, &n, A_LOWER, a->lower);
        break;
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD:
        attr_int(c, &n, A_EPSILON, (int64_t)plumb_f64_bits(a->epsilon));
        attr_int(c, &n, A_FEATURE_INDEX, a->feature_index);
        break;
    case PLUMB_OP_FFT:
        attr_int(c, &n, A_FFT_TYPE, a->fft_type);
        attr_list(c, &n, A_FFT_LENGTH, a->fft_length);
        break;
    case PLUMB_OP_COMPARE:
        attr_int(c, &n, A_CMP_DIR, a->cmp_dir);
        attr_int(c, &n, A_CMP_TYPE, cmp_type_of(op));
        break;
    case PLUMB_OP_IOTA:
    case PLUMB_OP_CONCATENATE:
    case PLUMB_OP_GET_DIMENSION_SIZE:
    case PLUMB_OP_DYNAMIC_IOTA:
        attr_int(c, &n, A_DIMENSION, a->dimension);
        break;
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
        attr_list(c, &n, A_DIMS, a->dims);
        attr_list(c, &n, A_KNOWN_EXPANDING, a->known_expanding);
        attr_list(c, &n, A_KNOWN_NONEXPANDING, a->known_nonexpanding);
        break;
    case PLUMB_OP_SHAPE_ASSERTION: {
        /* the message is what a failing run reports: its bytes, eight to
         * a word, after its length, so programs differing only in it never
         * share a compiled program */
        const char *msg = a->message ? a->message : "";
        size_t len = strlen(msg);
        uint8_t tag = A_MESSAGE;
        put(c, &tag, 1);
        put_u32(c, (uint32_t)(1 + (len + 7) / 8));
        put_i64(c, (int64_t)len);
        for (size_t i = 0; i < len; i += 8) {
            uint64_t w = 0;
            for (size_t k = 0; k < 8 && i + k < len; k++)
                w |= (uint64_t)(unsigned char)msg[i + k] << (8 * k);
            put_i64(c, (int64_t)w);
        }
        n++;
        break;
    }
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_REVERSE:
    case PLUMB_OP_REDUCE:
        attr_list(c, &n, A_DIMS, a->dims);
        break;
    case PLUMB_OP_SLICE: {
        attr_list(c, &n, A_START, a->start);
        attr_list(c, &n, A_LIMIT, a->limit);
        uint8_t tag = A_STRIDES;
        put(c, &tag, 1);
        put_u32(c, a->start.n);
        for (uint32_t i = 0; i < a->start.n; i++)
            put_i64(c, i < a->strides.n ? a->strides.v[i] : 1);
        n++;
        break;
    }
    case PLUMB_OP_DYNAMIC_SLICE:
        attr_list(c, &n, A_SIZES, a->sizes);
        break;
    case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER: {
        /* defaults written out: an omitted list and its spelled-out
         * default (strides, dilations 1, padding 0) are the same program */
        uint32_t r = a->window_dims.n;
        const ir_ints *l[4] = {&a->window_dims, &a->window_strides, &a->base_dilations, &a->window_dilations};
        static const uint8_t tags[4] = {A_WINDOW_DIMS, A_WINDOW_STRIDES, A_BASE_DILATIONS, A_WINDOW_DILATIONS};
        for (uint32_t k = 0; k < 4; k++) {
            uint8_t tag = tags[k];
            put(c, &tag, 1);
            put_u32(c, r);
            for (uint32_t i = 0; i < r; i++)
                put_i64(c, i < l[k]->n ? l[k]->v[i] : 1);
            n++;
        }
        uint8_t tag = A_PADDING;
        put(c, &tag, 1);
        put_u32(c, 2 * r);
        for (uint32_t i = 0; i < 2 * r; i++)
            put_i64(c, i < a->padding.n ? a->padding.v[i] : 0);
        n++;
        break;
    }
    case PLUMB_OP_PAD:
        attr_list(c, &n, A_LOW, a->low);
        attr_list(c, &n, A_HIGH, a->high);
        attr_list(c, &n, A_INTERIOR, a->interior);
        break;
    case PLUMB_OP_DOT_GENERAL:
        attr_list(c, &n, A_LHS_BATCH, a->lhs_batch);
        attr_list(c, &n, A_RHS_BATCH, a->rhs_batch);
        attr_list(c, &n, A_LHS_CONTRACT, a->lhs_contract);
        attr_list(c, &n, A_RHS_CONTRACT, a->rhs_contract);
        if (a->algorithm.present) {
            /* it changes the result (docs/spec/dotalg.md): every field */
            const ir_dot_algorithm *g = &a->algorithm;
            int64_t v[7] = {g->lhs_precision_type, g->rhs_precision_type, g->accumulation_type,
                            g->lhs_component_count, g->rhs_component_count, g->num_primitive_operations,
                            g->allow_imprecise_accumulation};
            attr_ints(c, &n, A_ALGORITHM, v, 7);
        }
        /* fall through */
    case PLUMB_OP_DOT:
    case PLUMB_OP_RAGGED_DOT: {   /* its dimension numbers: below (the group ones) and above */
        if (op->code == PLUMB_OP_RAGGED_DOT) {
            attr_list(c, &n, A_LHS_BATCH, a->lhs_batch);
            attr_list(c, &n, A_RHS_BATCH, a->rhs_batch);
            attr_list(c, &n, A_LHS_CONTRACT, a->lhs_contract);
            attr_list(c, &n, A_RHS_CONTRACT, a->rhs_contract);
            attr_list(c, &n, A_LHS_RAGGED, a->lhs_ragged);
            attr_list(c, &n, A_RHS_GROUP, a->rhs_group);
        }
        int64_t p[2] = {a->has_precision ? a->precision[0] : IR_PREC_DEFAULT,
                        a->has_precision ? a->precision[1] : IR_PREC_DEFAULT};
        attr_ints(c, &n, A_PRECISION, p, 2);
        break;
    }
    case PLUMB_OP_GATHER:
    case PLUMB_OP_DYNAMIC_GATHER:   /* its slice sizes are an operand: a->sizes is empty */
        attr_list(c, &n, A_OFFSET_DIMS, a->offset_dims);
        attr_list(c, &n, A_COLLAPSED, a->collapsed_slice_dims);
        attr_list(c, &n, A_OPERAND_BATCHING, a->operand_batching_dims);
        attr_list(c, &n, A_START_BATCHING, a->start_indices_batching_dims);
        attr_list(c, &n, A_START_INDEX_MAP, a->start_index_map);
        attr_int(c, &n, A_INDEX_VECTOR_DIM, a->index_vector_dim);
        attr_int(c, &n, A_SORTED, a->indices_are_sorted);
        attr_list(c, &n, A_SIZES, a->sizes);
        break;
    case PLUMB_OP_SCATTER:
        attr_list(c, &n, A_UPDATE_WINDOW, a->update_window_dims);
        attr_list(c, &n, A_INSERTED_WINDOW, a->inserted_window_dims);
        attr_list(c, &n, A_INPUT_BATCHING, a->input_batching_dims);
        attr_list(c, &n, A_SCATTER_BATCHING, a->scatter_indices_batching_dims);
        attr_list(c, &n, A_SCATTER_TO_OPERAND, a->scatter_dims_to_operand_dims);
        attr_int(c, &n, A_INDEX_VECTOR_DIM, a->index_vector_dim);
        attr_int(c, &n, A_SORTED, a->indices_are_sorted);
        attr_int(c, &n, A_UNIQUE, a->unique_indices);
        break;
    case PLUMB_OP_SORT: {
        int64_t dim = a->dimension;
        if (dim < 0 && op->n_operands)
            dim += (int64_t)op->operands[0]->type.rank;
        attr_int(c, &n, A_DIMENSION, dim);
        attr_int(c, &n, A_STABLE, a->is_stable);
        break;
    }
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV: {   /* its padding is an operand: n_padding is 0 */
        /* every field with its default written out (docs/spec/conv.md) */
        const ir_conv *cv = a->conv;
        if (cv) {
            int64_t v[16 + 9 * IR_CONV_MAX_SPATIAL];
            uint32_t k = 0, S = cv->n_spatial <= IR_CONV_MAX_SPATIAL ? cv->n_spatial : IR_CONV_MAX_SPATIAL;
            v[k++] = S;
            v[k++] = cv->in_batch;
            v[k++] = cv->in_feature;
            v[k++] = cv->k_in_feature;
            v[k++] = cv->k_out_feature;
            v[k++] = cv->out_batch;
            v[k++] = cv->out_feature;
            v[k++] = cv->feature_group_count;
            v[k++] = cv->batch_group_count;
            for (uint32_t i = 0; i < S; i++) {
                v[k++] = cv->in_spatial[i];
                v[k++] = cv->k_spatial[i];
                v[k++] = cv->out_spatial[i];
                v[k++] = cv->n_strides ? cv->strides[i] : 1;
                v[k++] = cv->n_padding ? cv->pad_lo[i] : 0;
                v[k++] = cv->n_padding ? cv->pad_hi[i] : 0;
                v[k++] = cv->n_lhs_dilation ? cv->lhs_dilation[i] : 1;
                v[k++] = cv->n_rhs_dilation ? cv->rhs_dilation[i] : 1;
                v[k++] = cv->n_reversal ? cv->reversal[i] : 0;
            }
            attr_ints(c, &n, A_CONV, v, k);
        }
        int64_t p[2] = {a->has_precision ? a->precision[0] : IR_PREC_DEFAULT,
                        a->has_precision ? a->precision[1] : IR_PREC_DEFAULT};
        attr_ints(c, &n, A_PRECISION, p, 2);
        break;
    }
    case PLUMB_OP_TOP_K:
        attr_int(c, &n, A_K, a->k);
        break;
    case PLUMB_OP_SCAN:   /* is_associative is a hint: the same program either way */
        attr_int(c, &n, A_DIMENSION, a->dimension);
        attr_int(c, &n, A_N_INITS, a->n_inits);
        attr_int(c, &n, A_IS_REVERSE, a->is_reverse);
        break;
    case PLUMB_OP_RNG_BIT_GENERATOR:
        attr_int(c, &n, A_RNG, a->rng_alg);
        break;
    case PLUMB_OP_CALL:
    case PLUMB_OP_COMPOSITE: {   /* its decomposition is what runs */
        const ir_func *f = a->callee ? ir_module_find_func(s->m, a->callee) : NULL;
        if (!f) {
            s->bad = true;
            break;
        }
        attr_int(c, &n, A_CALLEE, func_index(s, f));
        break;
    }
    case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        attr_int(c, &n, A_TOLERANCE, (int64_t)plumb_f64_bits(a->tolerance));
        break;
    case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST:
        attr_int(c, &n, A_MIN_ULP, a->min_ulp);
        attr_int(c, &n, A_MAX_ULP, a->max_ulp);
        break;
    default:
        break;
    }
    if (!c->failed)
        memcpy(c->bytes + at, &n, 4);
}

/* Whether two ops of one code carry the same interpreted attributes, by the
 * normalization the cache key uses: CSE (passes.c) asks this so that two
 * ops the key tells apart are never merged, whatever attribute a new op
 * adds. A call's or composite's callee is compared by name by the caller. */
bool rt_canon_attrs_same(const ir_op *x, const ir_op *y)
{
    if (x->code != y->code)
        return false;
    if (x->code == PLUMB_OP_CALL || x->code == PLUMB_OP_COMPOSITE)
        return true;
    rt_canon a = {0}, b = {0};
    ser sa = {.c = &a}, sb = {.c = &b};
    put_attrs(&sa, x);
    put_attrs(&sb, y);
    bool same = !a.failed && !b.failed && !sa.bad && !sb.bad && a.len == b.len &&
                (a.len == 0 || memcmp(a.bytes, b.bytes, a.len) == 0);
    rt_canon_free(&a);
    rt_canon_free(&b);
    return same;
}

static void ser_block(ser *s, const ir_block *b, uint32_t depth);

/* Keeps the op's front-end location as text so that a recompile
 * explanation can name it after the module is gone; not part of the key. */
static void add_origin(rt_canon *c, rt_canon_node *nd, const ir_debug_loc *l)
{
    nd->dloc = NULL;
    char buf[700];
    ir_debug_loc_describe(buf, sizeof buf, l);   /* " (from TEXT)" */
    size_t n = strlen(buf), pre = strlen(" (from ");
    if (n <= pre + 1 || c->origins_len >= UINT32_MAX - sizeof buf)
        return;
    size_t tn = n - pre - 1;
    if (c->origins_len + tn + 1 > c->origins_cap) {
        size_t ncap = c->origins_cap ? c->origins_cap * 2 : 1024;
        while (ncap < c->origins_len + tn + 1)
            ncap *= 2;
        char *no = plumb_realloc(c->origins, c->origins_cap, ncap);
        if (!no)
            return;
        c->origins = no;
        c->origins_cap = ncap;
    }
    memcpy(c->origins + c->origins_len, buf + pre, tn);
    c->origins[c->origins_len + tn] = '\0';
    nd->origin = (uint32_t)c->origins_len + 1;
    c->origins_len += tn + 1;
}

static void ser_op(ser *s, const ir_op *op, uint32_t depth)
{
    rt_canon *c = s->c;
    uint32_t idx = c->n_nodes;
    rt_canon_node *nd = new_node(c);
    if (!nd)
        return;
    nd->code = op->code;
    nd->func = s->func;
    nd->vbase = s->vbase;
    nd->depth = depth;
    nd->loc = op->loc;
    nd->dloc = ir_debug_loc_known(&op->dloc) ? &op->dloc : NULL;
    nd->src = op;
    put_u32(c, op->code);

    nd->off[RT_F_OPERANDS] = c->len;
    put_u32(c, op->n_operands);
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_value *v = op->operands[i];
        if (!v || v->id >= s->n_ids || !s->num[v->id]) {
            s->bad = true;
            return;
        }
        put_u32(c, s->num[v->id] - 1);
    }
    nd = &c->nodes[idx];
    nd->len[RT_F_OPERANDS] = c->len - nd->off[RT_F_OPERANDS];

    nd->off[RT_F_TYPES] = c->len;
    put_u32(c, op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++) {
        put_type(c, &op->results[i]->type);
        number(s, op->results[i], idx);
    }
    nd = &c->nodes[idx];
    nd->len[RT_F_TYPES] = c->len - nd->off[RT_F_TYPES];

    nd->off[RT_F_ATTRS] = c->len;
    put_attrs(s, op);
    nd = &c->nodes[idx];
    nd->len[RT_F_ATTRS] = c->len - nd->off[RT_F_ATTRS];

    nd->off[RT_F_VALUE] = c->len;
    const plumb_tensor *val = op->a.value;
    bool has_value = op->code == PLUMB_OP_CONSTANT || op->code == PLUMB_OP_EXPECT_EQ_CONST ||
                     op->code == PLUMB_OP_EXPECT_CLOSE_CONST || op->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST;
    if (has_value && val) {
        /* The expected value of a check carries its own type. */
        put_u32(c, (uint32_t)val->dtype);
        put_u32(c, val->rank);
        for (uint32_t i = 0; i < val->rank; i++)
            put_i64(c, val->dims[i]);
        /* A splat known from parsing (ir_attrs_value_splat) is written as
         * its one element, with that element's size as the byte count: the
         * key costs the same at every size, explanations read it as one
         * value, and it never equals the full form of the same type, whose
         * byte count is larger. */
        size_t es = plumb_dtype_size(val->dtype);
        bool splat = val->nbytes > RT_SPLAT_KEY_BYTES && ir_attrs_value_splat(&op->a);
        put_u64(c, splat ? es : val->nbytes);
        if (splat) {
            put(c, val->data, es);
        } else if (s->guard && val->nbytes > RT_GUARD_REF_BYTES && s->m->uid) {
            /* The guard's form names the bytes instead of copying them:
             * which module (its uid is never reused, and ir_module_touch
             * renews it after an in-place write), which tensor and which
             * buffer. Everything else is still compared in full. */
            put_u64(c, UINT64_MAX);
            put_u64(c, s->m->uid);
            put_u64(c, (uint64_t)(uintptr_t)val);
            put_u64(c, (uint64_t)(uintptr_t)val->data);
            s->n_refs++;
        } else {
            put(c, val->data, val->nbytes);
        }
    } else {
        put_u64(c, UINT64_MAX);
    }
    nd = &c->nodes[idx];
    nd->len[RT_F_VALUE] = c->len - nd->off[RT_F_VALUE];

    nd->off[RT_F_REGIONS] = c->len;
    put_u32(c, op->n_regions);
    for (uint32_t r = 0; r < op->n_regions; r++) {
        put_u32(c, op->regions[r].n_args);
        for (uint32_t i = 0; i < op->regions[r].n_args; i++)
            put_type(c, &op->regions[r].args[i]->type);
    }
    nd = &c->nodes[idx];
    nd->len[RT_F_REGIONS] = c->len - nd->off[RT_F_REGIONS];
    for (uint32_t r = 0; r < op->n_regions; r++) {
        for (uint32_t i = 0; i < op->regions[r].n_args; i++)
            number(s, op->regions[r].args[i], UINT32_MAX);
        ser_block(s, &op->regions[r], depth + 1);
        put_u32(c, RT_END);
    }
}

static void ser_block(ser *s, const ir_block *b, uint32_t depth)
{
    for (const ir_op *op = b->first; op && !s->bad && !s->c->failed; op = op->next)
        ser_op(s, op, depth);
}

static void ser_func(ser *s, const ir_func *f)
{
    rt_canon *c = s->c;
    uint32_t idx = c->n_nodes;
    rt_canon_node *nd = new_node(c);
    if (!nd)
        return;
    nd->code = RT_NODE_FUNC;
    nd->func = s->func;
    nd->vbase = s->vbase = c->n_vals;
    nd->loc = f->loc;
    nd->name = NULL;   /* the module may be freed while the serialization is cached */
    nd->src = f;
    s->next_local = 0;
    put_u32(c, RT_NODE_FUNC);
    nd->off[RT_F_TYPES] = c->len;
    put_u32(c, f->body.n_args);
    for (uint32_t i = 0; i < f->body.n_args; i++) {
        put_type(c, &f->body.args[i]->type);
        number(s, f->body.args[i], UINT32_MAX);
    }
    put_u32(c, f->n_results);
    for (uint32_t i = 0; i < f->n_results; i++)
        put_type(c, &f->result_types[i]);
    nd = &c->nodes[idx];
    nd->len[RT_F_TYPES] = c->len - nd->off[RT_F_TYPES];
    for (int k = 0; k < RT_F_COUNT; k++)
        if (k != RT_F_TYPES)
            nd->off[k] = c->len;
    ser_block(s, &f->body, 0);
    put_u32(c, RT_END);
}

static void put_trailer(rt_canon *c, const rt_key_ctx *kc)
{
    put_u32(c, RT_TRAILER);
    put_u32(c, RT_CANON_VERSION);
    char ver[32];
    memset(ver, 0, sizeof ver);
    memcpy(ver, RT_RUNTIME_VERSION, sizeof ver - 1);
    put(c, ver, sizeof ver);
    put_u32(c, (uint32_t)kc->isa);
    put_u32(c, kc->opt_level);
}

static bool build(rt_canon *c, const ir_module *m, const ir_func *entry, const rt_key_ctx *kc, bool guard,
                  uint32_t *n_refs, plumb_diag *d)
{
    /* Buffers of a previous build are reused: a cache hit then allocates
     * nothing (the hit path is part of every call through the cache). */
    c->len = 0;
    c->n_nodes = 0;
    c->n_vals = 0;
    c->origins_len = 0;
    c->failed = false;
    plumb_loc none = {0, 0};
    ser s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.m = m;
    s.d = d;
    s.guard = guard;
    s.n_ids = m->next_value_id;
    if (s.n_ids > c->cap_num) {
        if (c->num)
            plumb_free(c->num, (size_t)c->cap_num * sizeof *c->num);
        c->cap_num = 0;
        if (!(c->num = plumb_malloc((size_t)s.n_ids * sizeof *c->num)))
            c->failed = true;
        else
            c->cap_num = s.n_ids;
    }
    s.num = c->num;
    if (s.num && s.n_ids)
        memset(s.num, 0, (size_t)s.n_ids * sizeof *s.num);
    const ir_func *first[8];
    s.funcs = first;
    s.cap_funcs = 8;
    if (!c->failed)
        func_index(&s, entry);
    for (uint32_t i = 0; i < s.n_funcs && !c->failed && !s.bad; i++) {
        s.func = i;
        ser_func(&s, s.funcs[i]);
    }
    if (!c->failed && !s.bad)
        put_trailer(c, kc);
    if (c->file && (!m->filename || strcmp(c->file, m->filename) != 0)) {
        plumb_free(c->file, strlen(c->file) + 1);
        c->file = NULL;
    }
    if (m->filename && !c->file && !c->failed && !(c->file = plumb_strndup(m->filename, strlen(m->filename))))
        c->failed = true;
    if (s.funcs != first)
        plumb_free(s.funcs, (size_t)s.cap_funcs * sizeof *s.funcs);
    if (c->failed || s.bad) {
        if (c->failed)
            plumb_diag_set(d, PLUMB_ERR_NOMEM, none, "out of memory serializing @%s for the cache key",
                           entry->name);
        else
            plumb_diag_set(d, PLUMB_ERR_INVALID, none,
                           "@%s refers to a value or function that does not exist; verify the module first",
                           entry->name);
        rt_canon_free(c);
        return false;
    }
    if (n_refs)
        *n_refs = s.n_refs;
    return true;
}

bool rt_canon_build(rt_canon *c, const ir_module *m, const ir_func *entry, const rt_key_ctx *kc,
                    plumb_diag *d)
{
    return build(c, m, entry, kc, false, NULL, d);
}

bool rt_canon_build_guard(rt_canon *c, const ir_module *m, const ir_func *entry, const rt_key_ctx *kc,
                          uint32_t *n_refs, plumb_diag *d)
{
    return build(c, m, entry, kc, true, n_refs, d);
}

/* Appends n bytes of s and a NUL to c->origins; false when out of memory. */
static bool keep_text(rt_canon *c, const char *s, size_t n)
{
    if (n >= UINT32_MAX / 2 || c->origins_len >= UINT32_MAX - n - 1)
        return false;
    if (c->origins_len + n + 1 > c->origins_cap) {
        size_t ncap = c->origins_cap ? c->origins_cap * 2 : 1024;
        while (ncap < c->origins_len + n + 1)
            ncap *= 2;
        char *no = plumb_realloc(c->origins, c->origins_cap, ncap);
        if (!no)
            return false;
        c->origins = no;
        c->origins_cap = ncap;
    }
    if (n)
        memcpy(c->origins + c->origins_len, s, n);
    c->origins[c->origins_len + n] = '\0';
    c->origins_len += n + 1;
    return true;
}

/* The name a front end gave parameter i of f: its debug location's name
 * (`%a: T loc("batch.doc_ids")`), else jax.arg_info in its attributes, else
 * its SSA name; sets *n to its length (0 when it has none). */
static const char *param_name(const ir_func *f, uint32_t i, size_t *n)
{
    const ir_value *v = f->body.args[i];
    *n = 0;
    if (v->dloc && v->dloc->name) {
        *n = strlen(v->dloc->name);
        return v->dloc->name;
    }
    const char *at = f->arg_attrs && f->arg_attrs[i] ? strstr(f->arg_attrs[i], "jax.arg_info = \"") : NULL;
    if (at) {
        at += strlen("jax.arg_info = \"");
        const char *end = strchr(at, '"');
        if (end) {
            *n = (size_t)(end - at);
            return at;
        }
    }
    if (v->name)
        *n = strlen(v->name);
    return v->name;
}

/* Copies the names of node nd (borrowed by src) into c->origins. */
static void keep_names(rt_canon *c, rt_canon_node *nd)
{
    size_t start = c->origins_len;
    bool ok = true;
    if (nd->code == RT_NODE_FUNC) {
        const ir_func *f = nd->src;
        for (uint32_t i = 0; i < f->body.n_args && ok; i++) {
            size_t n;
            const char *s = param_name(f, i, &n);
            ok = keep_text(c, s, n);
        }
    } else {
        const ir_op *op = nd->src;
        if (op->n_results == 0 || !op->results[0]->name)
            return;
        ok = keep_text(c, op->results[0]->name, strlen(op->results[0]->name));
    }
    if (ok && c->origins_len > start)
        nd->names = (uint32_t)start + 1;
    else
        c->origins_len = start;   /* out of memory loses the names, not the serialization */
}

void rt_canon_keep_origins(rt_canon *c)
{
    c->origins_len = 0;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        c->nodes[i].origin = 0;
        c->nodes[i].names = 0;
        if (c->nodes[i].dloc)
            add_origin(c, &c->nodes[i], c->nodes[i].dloc);
        if (c->nodes[i].src)
            keep_names(c, &c->nodes[i]);
        c->nodes[i].src = NULL;   /* the module may be freed once cached */
    }
}

void rt_canon_free(rt_canon *c)
{
    if (c->bytes)
        plumb_free(c->bytes, c->cap);
    if (c->nodes)
        plumb_free(c->nodes, (size_t)c->cap_nodes * sizeof *c->nodes);
    if (c->val_node)
        plumb_free(c->val_node, (size_t)c->cap_vals * sizeof *c->val_node);
    if (c->file)
        plumb_free(c->file, strlen(c->file) + 1);
    if (c->origins)
        plumb_free(c->origins, c->origins_cap);
    if (c->num)
        plumb_free(c->num, (size_t)c->cap_num * sizeof *c->num);
    memset(c, 0, sizeof *c);
}

void rt_canon_key(const rt_canon *c, uint64_t key[2])
{
    XXH128_hash_t h = XXH3_128bits(c->bytes, c->len);
    key[0] = h.high64;
    key[1] = h.low64;
}

bool rt_canon_equal(const rt_canon *a, const rt_canon *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->bytes, b->bytes, a->len) == 0);
}

/* ---- reading a serialization back (disk entries) ---------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t len, pos;
    bool bad;
} rd;

static uint32_t get_u32(rd *r)
{
    uint32_t v = 0;
    if (r->len - r->pos < 4) {
        r->bad = true;
        r->pos = r->len;
        return 0;
    }
    memcpy(&v, r->p + r->pos, 4);
    r->pos += 4;
    return v;
}

static void skip(rd *r, uint64_t n)
{
    if (r->len - r->pos < n) {
        r->bad = true;
        r->pos = r->len;
        return;
    }
    r->pos += (size_t)n;
}

static void skip_type(rd *r)
{
    get_u32(r);
    uint32_t rank = get_u32(r);
    if (rank > PLUMB_MAX_RANK)
        r->bad = true;
    else
        skip(r, (uint64_t)rank * 16);
}

static void rd_block(rd *r, rt_canon *c, uint32_t func, uint32_t vbase, uint32_t depth);

static void rd_op(rd *r, rt_canon *c, uint32_t code, uint32_t func, uint32_t vbase, uint32_t depth)
{
    uint32_t idx = c->n_nodes;
    rt_canon_node *nd = new_node(c);
    if (!nd) {
        r->bad = true;
        return;
    }
    nd->code = code;
    nd->func = func;
    nd->vbase = vbase;
    nd->depth = depth;
    size_t st = r->pos;
    uint32_t n = get_u32(r);
    skip(r, (uint64_t)n * 4);
    c->nodes[idx].off[RT_F_OPERANDS] = st;
    c->nodes[idx].len[RT_F_OPERANDS] = r->pos - st;
    st = r->pos;
    n = get_u32(r);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        skip_type(r);
        add_val(c, idx);
    }
    c->nodes[idx].off[RT_F_TYPES] = st;
    c->nodes[idx].len[RT_F_TYPES] = r->pos - st;
    st = r->pos;
    n = get_u32(r);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        skip(r, 1);
        uint32_t k = get_u32(r);
        skip(r, (uint64_t)k * 8);
    }
    c->nodes[idx].off[RT_F_ATTRS] = st;
    c->nodes[idx].len[RT_F_ATTRS] = r->pos - st;
    st = r->pos;
    uint64_t vl = 0;
    if (r->len - r->pos >= 8)
        memcpy(&vl, r->p + r->pos, 8);
    if (vl == UINT64_MAX) {
        skip(r, 8);
    } else {
        get_u32(r);
        uint32_t rank = get_u32(r);
        if (rank > PLUMB_MAX_RANK)
            r->bad = true;
        skip(r, (uint64_t)rank * 8);
        uint64_t nb = 0;
        if (r->len - r->pos >= 8)
            memcpy(&nb, r->p + r->pos, 8);
        skip(r, 8);
        skip(r, nb);
    }
    c->nodes[idx].off[RT_F_VALUE] = st;
    c->nodes[idx].len[RT_F_VALUE] = r->pos - st;
    st = r->pos;
    uint32_t nreg = get_u32(r);
    if (nreg > 16)
        r->bad = true;
    uint32_t nargs[16] = {0};
    for (uint32_t i = 0; i < nreg && !r->bad; i++) {
        nargs[i] = get_u32(r);
        for (uint32_t j = 0; j < nargs[i] && !r->bad; j++)
            skip_type(r);
    }
    c->nodes[idx].off[RT_F_REGIONS] = st;
    c->nodes[idx].len[RT_F_REGIONS] = r->pos - st;
    for (uint32_t i = 0; i < nreg && !r->bad; i++) {
        for (uint32_t j = 0; j < nargs[i]; j++)
            add_val(c, UINT32_MAX);
        rd_block(r, c, func, vbase, depth + 1);
    }
}

static void rd_block(rd *r, rt_canon *c, uint32_t func, uint32_t vbase, uint32_t depth)
{
    while (!r->bad && !c->failed) {
        uint32_t code = get_u32(r);
        if (code == RT_END)
            return;
        if (code >= PLUMB_OP_COUNT || depth > 64) {
            r->bad = true;
            return;
        }
        rd_op(r, c, code, func, vbase, depth);
    }
}

bool rt_canon_from_bytes(rt_canon *c, uint8_t *bytes, size_t len)
{
    memset(c, 0, sizeof *c);
    c->bytes = bytes;
    c->len = c->cap = len;
    rd r = {bytes, len, 0, false};
    uint32_t func = 0;
    while (!r.bad && !c->failed && r.pos < r.len) {
        uint32_t code = get_u32(&r);
        if (code == RT_TRAILER) {
            skip(&r, 4 + 32 + 8);
            if (r.pos != r.len)
                r.bad = true;
            break;
        }
        if (code != RT_NODE_FUNC) {
            r.bad = true;
            break;
        }
        uint32_t idx = c->n_nodes;
        rt_canon_node *nd = new_node(c);
        if (!nd)
            break;
        nd->code = RT_NODE_FUNC;
        nd->func = func;
        nd->vbase = c->n_vals;
        size_t st = r.pos;
        uint32_t n = get_u32(&r);
        for (uint32_t i = 0; i < n && !r.bad; i++) {
            skip_type(&r);
            add_val(c, UINT32_MAX);
        }
        n = get_u32(&r);
        for (uint32_t i = 0; i < n && !r.bad; i++)
            skip_type(&r);
        c->nodes[idx].off[RT_F_TYPES] = st;
        c->nodes[idx].len[RT_F_TYPES] = r.pos - st;
        for (int k = 0; k < RT_F_COUNT; k++)
            if (k != RT_F_TYPES)
                c->nodes[idx].off[k] = r.pos;
        rd_block(&r, c, func, c->nodes[idx].vbase, 0);
        func++;
    }
    if (r.bad || c->failed || func == 0) {
        c->bytes = NULL;   /* the caller still owns them on failure */
        rt_canon_free(c);
        return false;
    }
    return true;
}
