/* The nn builder: a small C API over the IR builder that appends StableHLO
 * ops to a function and returns their values, plus the composites that
 * realistic programs are made of (softmax, norms, activations, attention,
 * mixture-of-experts routing). docs/nn.md describes every call.
 *
 * Error model: the first invalid argument (a rank, shape, axis or element
 * type that would make an invalid graph) or allocation failure is recorded
 * in the context's plumb_diag and the call returns NULL. Every later call
 * that receives a NULL value, or is made on a failed context, returns NULL
 * without building anything, so a whole graph can be written straight
 * through and checked once with plumb_nn_ok. Invalid arguments never
 * append anything (after an allocation failure the partial graph is only
 * fit for ir_module_free). Only static shapes are accepted. */
#ifndef PLUMB_NN_H
#define PLUMB_NN_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"
#include "ir.h"

typedef struct plumb_nn {
    ir_module *m;
    ir_func *f;        /* function being built */
    ir_block *b;       /* block new ops are appended to (f's body) */
    plumb_diag *d;     /* receives the first error; never NULL after init */
    plumb_diag own;    /* used when the caller passes no diag */
    bool failed;       /* an error was recorded; every later call is a no-op */
} plumb_nn;

/* Binds the context to module m; d may be NULL (errors then go to nn->own).
 * plumb_nn_begin_func then adds a new function `name` (which must not exist
 * yet) and directs every later op into its body. */
bool plumb_nn_init(plumb_nn *nn, ir_module *m, plumb_diag *d);
bool plumb_nn_begin_func(plumb_nn *nn, const char *name, bool is_public);
/* Appends func.return of vals and sets the function's result types. */
bool plumb_nn_return(plumb_nn *nn, ir_value *const *vals, uint32_t n);
bool plumb_nn_ok(const plumb_nn *nn);

/* ---- values -------------------------------------------------------------- */
ir_value *plumb_nn_param(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims);
/* A constant whose every element is v (rounded to nearest for floats;
 * integers must be exactly representable). */
ir_value *plumb_nn_full(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims, double v);
ir_value *plumb_nn_scalar(plumb_nn *nn, plumb_dtype t, double v);
/* A constant from numel(dims) doubles in row-major order. */
ir_value *plumb_nn_constant(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                            const double *data);
ir_value *plumb_nn_iota(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                        uint32_t iota_dim);

/* ---- primitives (one op each) ------------------------------------------------
 * unary/binary take any elementwise opcode of that arity from ir/ops.def;
 * operands of a binary op must have the same type. */
ir_value *plumb_nn_unary(plumb_nn *nn, plumb_opcode code, ir_value *x);
ir_value *plumb_nn_binary(plumb_nn *nn, plumb_opcode code, ir_value *a, ir_value *b);
ir_value *plumb_nn_add(plumb_nn *nn, ir_value *a, ir_value *b);
ir_value *plumb_nn_sub(plumb_nn *nn, ir_value *a, ir_value *b);
ir_value *plumb_nn_mul(plumb_nn *nn, ir_value *a, ir_value *b);
ir_value *plumb_nn_div(plumb_nn *nn, ir_value *a, ir_value *b);
/* Result is i1 of the operands' shape. */
ir_value *plumb_nn_compare(plumb_nn *nn, ir_cmp_dir dir, ir_value *a, ir_value *b);
ir_value *plumb_nn_select(plumb_nn *nn, ir_value *pred, ir_value *on_true, ir_value *on_false);
ir_value *plumb_nn_convert(plumb_nn *nn, ir_value *x, plumb_dtype t);
/* Result shape dims[0..rank); operand dimension i goes to result dimension
 * bdims[i] (strictly increasing, sizes equal or 1 in the operand). */
ir_value *plumb_nn_broadcast_in_dim(plumb_nn *nn, ir_value *x, uint32_t rank, const int64_t *dims,
                                    const int64_t *bdims);
/* Broadcasts x to the type of `like`, x's dimensions mapping onto the
 * trailing dimensions of like (numpy's right-aligned rule; no size-1
 * stretching). */
ir_value *plumb_nn_broadcast_to(plumb_nn *nn, ir_value *x, const ir_type *like);
ir_value *plumb_nn_reshape(plumb_nn *nn, ir_value *x, uint32_t rank, const int64_t *dims);
/* Elements start[i] <= j < limit[i] of each dimension i, stride 1. */
ir_value *plumb_nn_slice(plumb_nn *nn, ir_value *x, const int64_t *start, const int64_t *limit);
ir_value *plumb_nn_transpose(plumb_nn *nn, ir_value *x, const int64_t *perm);
/* Result dimensions: batch dims, then a's free dims, then b's (StableHLO). */
ir_value *plumb_nn_dot_general(plumb_nn *nn, ir_value *a, ir_value *b,
                               const int64_t *a_batch, const int64_t *b_batch, uint32_t n_batch,
                               const int64_t *a_contract, const int64_t *b_contract,
                               uint32_t n_contract);

typedef enum plumb_nn_reducer {
    PLUMB_NN_SUM,      /* body stablehlo.add, init 0 */
    PLUMB_NN_MAX,      /* body stablehlo.maximum, init -inf (lowest for ints) */
} plumb_nn_reducer;

/* Reduces dimensions dims[0..n) (distinct, in range); the result keeps the
 * other dimensions in order. */
ir_value *plumb_nn_reduce(plumb_nn *nn, ir_value *x, plumb_nn_reducer r, const int64_t *dims,
                          uint32_t n);
/* chlo.top_k along the last dimension: values (x's type, last dim k) and
 * i32 indices. Returns false after recording the error. */
bool plumb_nn_top_k(plumb_nn *nn, ir_value *x, int64_t k, ir_value **values, ir_value **indices);
/* func.call of a function already in the module; its results go to
 * results[0..n_results) (n_results must match the callee). */
bool plumb_nn_call(plumb_nn *nn, const char *callee, ir_value *const *args, uint32_t n_args,
                   ir_value **results, uint32_t n_results);

/* ---- checks (custom_call @check.*) ------------------------------------------ */
/* |got - expected| <= tolerance elementwise. */
bool plumb_nn_check_almost_eq(plumb_nn *nn, ir_value *got, ir_value *expected, double tolerance);
/* ULP distance within [min_ulp, max_ulp]. */
bool plumb_nn_check_close(plumb_nn *nn, ir_value *got, ir_value *expected, int64_t min_ulp,
                          int64_t max_ulp);
bool plumb_nn_check_eq(plumb_nn *nn, ir_value *got, ir_value *expected);

/* ---- composites -----------------------------------------------------------------
 * Float operands only. axis may be negative (counted from the end). */
/* exp(x - max) / sum(exp(x - max)) along axis. */
ir_value *plumb_nn_softmax(plumb_nn *nn, ir_value *x, int64_t axis);
/* (x - max) - log(sum(exp(x - max))) along axis. */
ir_value *plumb_nn_log_softmax(plumb_nn *nn, ir_value *x, int64_t axis);
/* (x - mean) * rsqrt(var + eps) * gamma + beta over the last axis, with the
 * biased variance; gamma and beta are rank 1 of the last axis' size, or NULL
 * (no scale / no shift). */
ir_value *plumb_nn_layer_norm(plumb_nn *nn, ir_value *x, ir_value *gamma, ir_value *beta,
                              double eps);
/* x * rsqrt(mean(x^2) + eps) * gamma over the last axis; gamma may be NULL. */
ir_value *plumb_nn_rms_norm(plumb_nn *nn, ir_value *x, ir_value *gamma, double eps);

typedef enum plumb_nn_gelu_form {
    PLUMB_NN_GELU_ERF,    /* 0.5 x (1 + erf(x / sqrt 2)), exact */
    PLUMB_NN_GELU_TANH,   /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
} plumb_nn_gelu_form;

ir_value *plumb_nn_gelu(plumb_nn *nn, ir_value *x, plumb_nn_gelu_form form);
/* x * logistic(x). */
ir_value *plumb_nn_silu(plumb_nn *nn, ir_value *x);
/* x . w + bias for x [..., in], w [in, out], bias [out] or NULL. */
ir_value *plumb_nn_linear(plumb_nn *nn, ir_value *x, ir_value *w, ir_value *bias);
/* -mean over rows of sum(labels * log_softmax(logits)) for logits and
 * labels [rows, classes] (labels one-hot or any distribution): a scalar. */
ir_value *plumb_nn_softmax_cross_entropy(plumb_nn *nn, ir_value *logits, ir_value *labels);

/* i1 [sq, sk], true where key j may be attended from query i: j <= i. */
ir_value *plumb_nn_causal_mask(plumb_nn *nn, int64_t sq, int64_t sk);

/* softmax(q . k^T * scale + mask) . v, batched over the leading dimensions.
 * q [B..., Sq, D], k [B..., Sk, D], v [B..., Sk, Dv] (same leading dims,
 * e.g. [batch, heads]) -> [B..., Sq, Dv]. scale <= 0 means 1/sqrt(D).
 * mask is NULL, [Sq, Sk] or [B..., Sq, Sk]; a float mask (q's type) is
 * added to the scores, an i1 mask keeps true positions and sets the others
 * to the lowest finite value, so a fully masked row is uniform, not NaN. */
ir_value *plumb_nn_attention(plumb_nn *nn, ir_value *q, ir_value *k, ir_value *v,
                             ir_value *mask, double scale);

/* Mixture-of-experts top-k routing with a static capacity.
 * logits [T, E] (router output) -> probs = softmax(logits); the top k
 * experts of each token are its choices. Slots are handed out by priority:
 * every token's first choice before any second choice, tokens in order
 * within a choice. A choice whose expert already has `capacity` tokens is
 * dropped. dispatch [T, E, C] is 1 where token t occupies slot c of expert
 * e; combine [T, E, C] is dispatch times the gate: the choice's probability,
 * divided by the sum of the token's k top probabilities when renormalize.
 * Both are in logits' type; everything is static. */
typedef struct plumb_nn_moe_routing {
    ir_value *probs;      /* [T, E] */
    ir_value *dispatch;   /* [T, E, C] */
    ir_value *combine;    /* [T, E, C] */
} plumb_nn_moe_routing;

bool plumb_nn_moe_route(plumb_nn *nn, ir_value *logits, int64_t k, int64_t capacity,
                        bool renormalize, plumb_nn_moe_routing *out);

/* ---- canonicalization policies (docs/policies.md) ------------------------------
 * Builder-side fixes for values that would otherwise change the program
 * from step to step: each keeps the program's types fixed and moves the
 * varying value into a parameter that a mask reads. */

/* Buckets for a changing static dimension: the smallest of buckets[0..n)
 * (strictly increasing, positive) that is >= len; -1 when len is < 1 or
 * above the largest (the caller decides: a new bucket or an error). */
int64_t plumb_nn_bucket(const int64_t *buckets, uint32_t n, int64_t len);
/* i1 of shape dims[0..rank): true where the index along dimension dim is
 * below len (a tensor<i32> parameter holding the actual length). */
ir_value *plumb_nn_length_mask(plumb_nn *nn, ir_value *len, uint32_t rank, const int64_t *dims, uint32_t dim);
/* Host side of a bucket: x padded along dim to size with fill (a new
 * tensor), and the first len entries along dim of a padded result. NULL
 * with d set on a bad dimension, size or allocation failure. */
plumb_tensor *plumb_nn_pad_tensor(const plumb_tensor *x, uint32_t dim, int64_t size, double fill, plumb_diag *d);
plumb_tensor *plumb_nn_unpad_tensor(const plumb_tensor *x, uint32_t dim, int64_t len, plumb_diag *d);

/* An optional batch field made always present: adds two parameters (like
 * plumb_nn_param, so before the first op): the field with a fixed type
 * and its presence flag, a tensor<i1>. */
bool plumb_nn_optional_param(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                             ir_value **field, ir_value **present);
/* The field where present is true, else a constant `absent` of the
 * field's type (what the program without the field used): select copies
 * bits, so either way the value is the variant program's. */
ir_value *plumb_nn_optional_value(plumb_nn *nn, ir_value *field, ir_value *present, double absent);

/* top_k with k clamped at build time: chlo.top_k with k_max (static),
 * and k a tensor<i32> parameter holding the actual k (taken as min(k,
 * k_max)). *mask (i1, the values' shape) is true for the first k of each
 * row; *values are top_k's values with the tail set to 0, *indices its
 * indices unchanged. The first k values and indices are exactly top_k
 * with k (a stable top_k's first k do not depend on k_max). */
bool plumb_nn_top_k_clamped(plumb_nn *nn, ir_value *x, int64_t k_max, ir_value *k, ir_value **values,
                            ir_value **indices, ir_value **mask);

/* plumb_nn_moe_route with the capacity clamped at build time: the slots
 * dimension is capacity_max (static); capacity (a tensor<i32> parameter,
 * or NULL for capacity_max) drops every choice at a slot >= capacity. The
 * first min(capacity, capacity_max) slots are plumb_nn_moe_route with that
 * capacity, bit for bit; the others are 0. */
bool plumb_nn_moe_route_clamped(plumb_nn *nn, ir_value *logits, int64_t k, int64_t capacity_max,
                                ir_value *capacity, bool renormalize, plumb_nn_moe_routing *out);

#endif
