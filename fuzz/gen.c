/* The program generator of the fuzzer: random programs over the op table,
 * type- and shape-correct by construction (every program is parsed and
 * verified before it runs; a failure is a generator bug), deterministic for
 * a seed, and the mutators that derive new programs from one. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "plumb/backend.h"
#include "plumb/ir.h"
#include "../conformance/conf.h"

/* ---- a small deterministic generator (splitmix64) ------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next64(rng *r)
{
    uint64_t x = (r->s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Uniform in [0, n); n > 0. Always one draw, whatever n is, so that a
 * program grown by the shape mutator makes the same choices as its base. */
static uint32_t below(rng *r, uint32_t n) { return n ? (uint32_t)(next64(r) % n) : 0; }

static uint64_t mix(uint64_t a, uint64_t b)
{
    rng r = {a ^ (b * 0xD1B54A32D192ED03ull)};
    return next64(&r);
}

/* ---- what the generator builds ---------------------------------------------- */

/* ---- op set v2: convolution, windows, linear algebra, batch norm, control flow ---- */

/* The ops built from a whole line of text (fz_node.line) with their
 * result types in fz_node.rtypes. */
static bool is_v2(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER:
    case PLUMB_OP_CHOLESKY:
    case PLUMB_OP_TRIANGULAR_SOLVE:
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD:
    case PLUMB_OP_WHILE:
    case PLUMB_OP_IF:
    case PLUMB_OP_CASE:
        return true;
    default:
        return false;
    }
}


bool fz_op_supported(plumb_opcode op)
{
    const plumb_op_info *oi = plumb_op_get(op);
    if (oi->kind == PLUMB_KIND_ELEMENTWISE || is_v2(op))
        return true;
    switch (op) {
    case PLUMB_OP_BITCAST_CONVERT:
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE:
    case PLUMB_OP_DOT:
    case PLUMB_OP_RNG_BIT_GENERATOR:
    case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_RESHAPE:
    case PLUMB_OP_TRANSPOSE:
    case PLUMB_OP_SLICE:
    case PLUMB_OP_CONCATENATE:
    case PLUMB_OP_REVERSE:
    case PLUMB_OP_REDUCE:
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_PAD:
    case PLUMB_OP_IOTA:
    case PLUMB_OP_SORT:
    case PLUMB_OP_GATHER:
    case PLUMB_OP_SCATTER:
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM:
    case PLUMB_OP_TOP_K:
    case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_DYNAMIC_IOTA:
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD:
    case PLUMB_OP_DYNAMIC_GATHER:
        return true;
    default:
        return false;
    }
}

/* The dynamic ops: built only with --poly (on a `?` operand, or for
 * dynamic_gather with its slice sizes as an operand), so programs without
 * it draw among the static ops alone. */
static bool poly_only(plumb_opcode op)
{
    return op == PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM || op == PLUMB_OP_DYNAMIC_RESHAPE ||
           op == PLUMB_OP_DYNAMIC_IOTA || op == PLUMB_OP_REAL_DYNAMIC_SLICE || op == PLUMB_OP_DYNAMIC_PAD ||
           op == PLUMB_OP_DYNAMIC_GATHER;
}

bool fz_op_needs_poly(plumb_opcode op) { return poly_only(op); }

bool fz_pair_possible(plumb_opcode op, plumb_dtype t)
{
    if (!(plumb_op_get(op)->types & PLUMB_TY_BIT(t)) && plumb_op_get(op)->kind == PLUMB_KIND_ELEMENTWISE &&
        op != PLUMB_OP_CONVERT && op != PLUMB_OP_SELECT)
        return false;
    /* a dot of booleans is not built (no sum over i1); iota's types are the table's */
    if ((op == PLUMB_OP_DOT_GENERAL || op == PLUMB_OP_DOT) && t == PLUMB_I1)
        return false;
    if (op == PLUMB_OP_BITCAST_CONVERT && t == PLUMB_I1)
        return false;
    if ((op == PLUMB_OP_IOTA || op == PLUMB_OP_DYNAMIC_IOTA || op == PLUMB_OP_RNG_BIT_GENERATOR) &&
        !(plumb_op_get(op)->types & PLUMB_TY_BIT(t)))
        return false;
    return true;
}

uint32_t fz_node_results(const fz_node *n)
{
    if (n->kind == FZ_OP && n->n_res)
        return n->n_res;
    return n->kind == FZ_OP && (n->op == PLUMB_OP_TOP_K || n->op == PLUMB_OP_RNG_BIT_GENERATOR) ? 2 : 1;
}

uint32_t fz_node_value(const fz_node *n)
{
    if (n->kind == FZ_OP && n->n_res)
        return n->val;
    return n->kind == FZ_OP && n->op == PLUMB_OP_RNG_BIT_GENERATOR ? 1 : 0; }

void fz_gen_opts_init(fz_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        /* Every op the generator builds, the op set v2 ones included (the
         * findings they first showed are fixed: docs/fuzz.md). */
        o->ops[i] = fz_op_supported((plumb_opcode)i);
    o->dtypes = PLUMB_TY_ALL;
    o->max_nodes = FZ_DEFAULT_NODES;
    o->max_elems = FZ_DEFAULT_ELEMS;
}

static uint64_t numel(const fz_node *n)
{
    uint64_t e = 1;
    for (uint32_t i = 0; i < n->rank; i++)
        e *= (uint64_t)n->dims[i];
    return e;
}

static bool same_type(const fz_node *a, const fz_node *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank || a->dyn != b->dyn)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

typedef struct gctx {
    const fz_gen_opts *o;
    fz_prog *p;
    rng r;
    uint32_t bump;
    plumb_diag *d;
    bool failed;
} gctx;

static fz_node *add_node(gctx *g, uint8_t kind)
{
    if (g->p->n_nodes >= FZ_MAX_NODES)
        return NULL;
    fz_node *n = &g->p->n[g->p->n_nodes++];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return n;
}

/* ---- values ------------------------------------------------------------------- */

static uint64_t float_bits(plumb_dtype t, double v)
{
    switch (t) {
    case PLUMB_F16:
        return plumb_f64_to_f16(v);
    case PLUMB_BF16:
        return plumb_f64_to_bf16(v);
    case PLUMB_F32:
        return plumb_f32_bits((float)v);
    default:
        return plumb_f64_bits(v);
    }
}

enum { VC_SPECIAL, VC_SUBNORMAL, VC_BOUNDARY, VC_NORMAL, VC_UNIFORM, VC_COUNT };

/* One element of value class vc for type t. Normal values stay in
 * [-4, 4] most of the time so that chains of ops keep finite results. */
static uint64_t value_bits(rng *r, plumb_dtype t, int vc)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t mask = di->bits >= 64 ? ~0ull : (1ull << di->bits) - 1;
    if (plumb_dtype_is_bool(t))
        return next64(r) & 1;
    if (!plumb_dtype_is_float(t)) {
        if (vc == VC_BOUNDARY || vc == VC_SPECIAL) {
            /* 0, 1, -1 (all ones), the largest and smallest of the type */
            uint64_t smax = plumb_dtype_is_signed(t) ? mask >> 1 : mask;
            uint64_t v[] = {0, 1, mask, smax, smax + 1, 2};
            return v[below(r, 6)] & mask;
        }
        if (vc == VC_UNIFORM)
            return next64(r) & mask;
        return (uint64_t)((int64_t)below(r, 17) - 8) & mask;
    }
    uint64_t specials[32];
    uint32_t ns = conf_float_specials(t, specials);
    uint64_t frac = (1ull << di->mant_bits) - 1, sign = 1ull << (di->bits - 1);
    switch (vc) {
    case VC_SPECIAL:
        if (ns)
            return specials[below(r, ns)];
        return 0;
    case VC_SUBNORMAL:
        return ((next64(r) & frac) | 1) | (next64(r) & sign);
    case VC_BOUNDARY: {
        uint64_t maxf = ((((1ull << di->exp_bits) - 2) << di->mant_bits) | frac);
        uint64_t minn = 1ull << di->mant_bits;
        uint64_t v[] = {maxf, minn, float_bits(t, 1.0), float_bits(t, 0.5), frac, minn - 1};
        return v[below(r, 6)] | (next64(r) & sign);
    }
    case VC_UNIFORM:
        return next64(r) & mask;
    default: {
        double x = ((double)(next64(r) >> 11) / 9007199254740992.0) * 8.0 - 4.0;
        return float_bits(t, x);
    }
    }
}

static void fill_tensor(rng *r, plumb_tensor *x, bool mostly_normal)
{
    int vc = mostly_normal ? VC_NORMAL : (int)below(r, VC_COUNT);
    /* most tensors are normal values with a few elements of another class */
    int extra = (int)below(r, VC_COUNT);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        int c = below(r, 8) == 0 ? extra : vc;
        plumb_store_bits(x->dtype, x->data, (size_t)i, value_bits(r, x->dtype, c));
    }
}

/* ---- building ------------------------------------------------------------------ */

static uint32_t new_param(gctx *g, plumb_dtype t, uint32_t rank, const int64_t *dims, uint8_t dyn)
{
    fz_node *n = add_node(g, FZ_PARAM);
    if (!n) {
        g->failed = true;
        return 0;
    }
    n->dtype = t;
    n->dyn = dyn;
    n->rank = rank;
    if (rank)   /* a scalar may pass no dims (NULL) */
        memcpy(n->dims, dims, rank * sizeof *dims);
    n->index = g->p->n_params++;
    return (uint32_t)(n - g->p->n);
}

static uint32_t new_const(gctx *g, plumb_dtype t, uint32_t rank, const int64_t *dims, const uint64_t *splat)
{
    fz_node *n = add_node(g, FZ_CONST);
    if (!n) {
        g->failed = true;
        return 0;
    }
    n->dtype = t;
    n->rank = rank;
    if (rank)   /* a scalar may pass no dims (NULL) */
        memcpy(n->dims, dims, rank * sizeof *dims);
    n->value = plumb_tensor_new(t, rank, dims, 0, g->d);
    if (!n->value) {
        g->failed = true;
        return 0;
    }
    if (splat)
        for (uint64_t i = 0, e = plumb_tensor_numel(n->value); i < e; i++)
            plumb_store_bits(t, n->value->data, (size_t)i, *splat);
    else
        fill_tensor(&g->r, n->value, true);
    return (uint32_t)(n - g->p->n);
}

/* A fresh operand of the given type: a parameter, or a constant one time
 * in four (a constant is static, so a type with `?` is always a parameter). */
static uint32_t fresh(gctx *g, plumb_dtype t, uint32_t rank, const int64_t *dims, uint8_t dyn)
{
    if (below(&g->r, 4) == 0 && !dyn)
        return new_const(g, t, rank, dims, NULL);
    return new_param(g, t, rank, dims, dyn);
}

static uint32_t random_param(gctx *g, plumb_dtype t)
{
    uint32_t rank = below(&g->r, 4);
    int64_t dims[FZ_MAX_RANK];
    uint64_t e = 1;
    for (uint32_t i = 0; i < rank; i++) {
        dims[i] = 1 + below(&g->r, 4) + g->bump;
        e *= (uint64_t)dims[i];
    }
    /* A `?` dimension 0 bounded by 2..8 (the draws are made only with
     * --poly, so programs without it are the ones they always were). */
    uint8_t dyn = 0;
    if (g->o->poly) {
        bool pick = below(&g->r, 100) < g->o->poly;
        int64_t bound = 2 + below(&g->r, 7) + g->bump;
        if (pick && rank) {
            dyn = 1;
            e = e / (uint64_t)dims[0] * (uint64_t)bound;
            dims[0] = bound;
        }
    }
    /* keep within --max-elements: shrink the largest dimension first */
    while (e > g->o->max_elems) {
        uint32_t k = 0;
        for (uint32_t i = 1; i < rank; i++)
            if (dims[i] > dims[k])
                k = i;
        if (dims[k] == 1)
            break;
        dims[k]--;
        e = 1;
        for (uint32_t i = 0; i < rank; i++)
            e *= (uint64_t)dims[i];
    }
    return new_param(g, t, rank, dims, dyn);
}

/* A value of exactly this type from the program so far (one time in four,
 * or when there is none, a fresh one). */
static uint32_t matching(gctx *g, const fz_node *like)
{
    uint32_t cand[FZ_MAX_NODES], nc = 0;
    for (uint32_t i = 0; i < g->p->n_nodes; i++)
        if (same_type(&g->p->n[i], like))
            cand[nc++] = i;
    uint32_t pick = below(&g->r, nc + nc / 3 + 1);
    if (pick < nc)
        return cand[pick];
    return fresh(g, like->dtype, like->rank, like->dims, like->dyn);
}

/* A constant tensor<kx1xi32> of k distinct row indices in [0, n) (k <= n),
 * drawn from seed so the program's main stream is the same whatever n is.
 * Marked fixed: distinct in-range indices keep scatter deterministic, so
 * no mutator changes them. */
static uint32_t index_const(gctx *g, uint32_t k, uint32_t n, uint32_t seed)
{
    int64_t dims[2] = {k, 1};
    uint32_t ni = new_const(g, PLUMB_I32, 2, dims, NULL);
    if (g->failed)
        return 0;
    rng r = {seed * 0x9E3779B97F4A7C15ull + 17};
    uint32_t perm[64];
    for (uint32_t i = 0; i < n && i < 64; i++)
        perm[i] = i;
    for (uint32_t i = 0; i < k; i++) { /* partial Fisher-Yates */
        uint32_t j = i + below(&r, n - i);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        plumb_store_bits(PLUMB_I32, g->p->n[ni].value->data, i, perm[i]);
    }
    g->p->n[ni].fixed = true;
    return ni;
}

static void list(char *out, size_t cap, const int64_t *v, uint32_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
}

static bool accepts(plumb_opcode op, plumb_dtype t) { return (plumb_op_get(op)->types & PLUMB_TY_BIT(t)) != 0; }

/* Adds op node op (a result of the program) with a static type of rank
 * 0 or 1; the parts of a computed shape. */
static uint32_t shape_op(gctx *g, plumb_opcode op, uint32_t rank, int64_t d0, uint32_t a, uint32_t b,
                         uint32_t n_args, const char *post)
{
    fz_node *n = add_node(g, FZ_OP);
    if (!n) {
        g->failed = true;
        return 0;
    }
    n->op = op;
    n->dtype = PLUMB_I32;
    n->rank = rank;
    n->dims[0] = d0;
    n->arg[0] = a;
    n->arg[1] = b;
    n->n_args = n_args;
    snprintf(n->post, sizeof n->post, "%s", post);
    n->index = g->p->n_results++;
    return (uint32_t)(n - g->p->n);
}

/* A constant tensor<Nxi32> holding v, fixed: sizes and offsets the result
 * types state, which no mutator may change. */
static uint32_t sizes_const(gctx *g, const int64_t *v, uint32_t n)
{
    int64_t len = n;
    uint64_t zero = 0;   /* a splat: no value draws */
    uint32_t c = new_const(g, PLUMB_I32, 1, &len, &zero);
    if (g->failed)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        plumb_store_bits(PLUMB_I32, g->p->n[c].value->data, i, (uint64_t)v[i]);
    g->p->n[c].fixed = true;
    return c;
}

/* The shape of res as a tensor<rank x i32> the program computes, as
 * docs/spec/dynamic.md shows: get_dimension_size of operand xi for each
 * `?` of res (dimension i of res is dimension j of xi when map[j] == i;
 * n_map entries), reshaped to tensor<1xi32>, constants for the static
 * sizes, concatenated. Each part is a result of the program, checked too. */
static uint32_t computed_shape(gctx *g, uint32_t xi, const fz_node *res, const int64_t *map, uint32_t n_map)
{
    uint32_t shape = 0;
    for (uint32_t i = 0; i < res->rank && !g->failed; i++) {
        uint32_t part;
        if ((res->dyn >> i) & 1) {
            char post[24];
            uint32_t j = 0;
            while (j + 1 < n_map && map[j] != (int64_t)i)
                j++;
            snprintf(post, sizeof post, ", dim = %u", j);
            uint32_t n = shape_op(g, PLUMB_OP_GET_DIMENSION_SIZE, 0, 0, xi, 0, 1, post);
            part = shape_op(g, PLUMB_OP_RESHAPE, 1, 1, n, 0, 1, "");
        } else {
            part = sizes_const(g, &res->dims[i], 1);
        }
        shape = i ? shape_op(g, PLUMB_OP_CONCATENATE, 1, (int64_t)i + 1, shape, part, 2, ", dim = 0") : part;
    }
    return shape;
}

/* Elementwise predicates: a float operand, an i1 result (is_finite and
 * chlo's is_inf, is_pos_inf, is_neg_inf, found by name so the generator
 * follows the table as it grows). */
static bool is_predicate(plumb_opcode op)
{
    return op == PLUMB_OP_IS_FINITE || strncmp(plumb_op_name(op), "chlo.is_", 8) == 0;
}

/* "tensor<2x3xf32>" of a static type. */
static void tyname(char *o, size_t cap, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    size_t len = (size_t)snprintf(o, cap, "tensor<");
    for (uint32_t i = 0; i < rank && len < cap; i++)
        len += (size_t)snprintf(o + len, cap - len, "%lldx", (long long)dims[i]);
    if (len < cap)
        snprintf(o + len, cap - len, "%s>", plumb_dtype_name(t));
}

/* The identity of body (add, multiply, maximum, minimum) in type t: the
 * init value that leaves a reduction's result alone. */
static uint64_t identity_bits(plumb_dtype t, plumb_opcode body)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    bool mx = body == PLUMB_OP_MAXIMUM;
    if (body == PLUMB_OP_ADD)
        return 0;
    if (body == PLUMB_OP_MULTIPLY)
        return plumb_dtype_is_float(t) ? float_bits(t, 1.0) : 1;
    if (plumb_dtype_is_float(t))
        return float_bits(t, mx ? -INFINITY : INFINITY);
    if (plumb_dtype_is_bool(t))
        return mx ? 0 : 1;
    if (plumb_dtype_is_signed(t))
        return mx ? 1ull << (di->bits - 1) : (1ull << (di->bits - 1)) - 1;
    return mx ? 0 : di->bits >= 64 ? ~0ull : (1ull << di->bits) - 1;
}

/* One window dimension of size n: window w, stride, base and window
 * dilations, padding lo/hi (hi grown until the window fits); returns the
 * output size (the spec's (padded - dilated window) / stride + 1). */
typedef struct win1 {
    int64_t w, stride, bd, wd, lo, hi;
} win1;

static int64_t win_draw(rng *r, int64_t n, bool dilations, bool negative_pad, win1 *o)
{
    o->w = 1 + below(r, 3);
    o->stride = 1 + below(r, 2);
    o->bd = dilations && below(r, 4) == 0 ? 2 : 1;
    o->wd = dilations && below(r, 4) == 0 ? 2 : 1;
    o->lo = below(r, 3);
    o->hi = below(r, 3);
    int64_t sd = n ? (n - 1) * o->bd + 1 : 0;
    if (negative_pad && below(r, 6) == 0 && sd >= 2)
        o->lo = -1;   /* a crop: padding may be negative */
    int64_t wdil = (o->w - 1) * o->wd + 1;
    while (sd + o->lo + o->hi < wdil)
        o->hi++;
    return (sd + o->lo + o->hi - wdil) / o->stride + 1;
}

/* The attribute lists of n window dimensions, each ", "-separated: window
 * sizes, strides, base and window dilations, and "[lo, hi]" padding pairs
 * (convolution, reduce_window and select_and_scatter write theirs from
 * these). Draws nothing, so callers keep their random streams. */
typedef struct win_text {
    char w[64], stride[64], bd[64], wd[64], pad[96];
} win_text;

static void win_lists(const win1 *w, uint32_t n, win_text *t)
{
    size_t a = 0, b = 0, c = 0, d = 0, e = 0;
    t->w[0] = t->stride[0] = t->bd[0] = t->wd[0] = t->pad[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        const char *sep = i ? ", " : "";
        a += (size_t)snprintf(t->w + a, sizeof t->w - a, "%s%lld", sep, (long long)w[i].w);
        b += (size_t)snprintf(t->stride + b, sizeof t->stride - b, "%s%lld", sep, (long long)w[i].stride);
        c += (size_t)snprintf(t->bd + c, sizeof t->bd - c, "%s%lld", sep, (long long)w[i].bd);
        d += (size_t)snprintf(t->wd + d, sizeof t->wd - d, "%s%lld", sep, (long long)w[i].wd);
        e += (size_t)snprintf(t->pad + e, sizeof t->pad - e, "%s[%lld, %lld]", sep, (long long)w[i].lo,
                              (long long)w[i].hi);
    }
}

/* A unary op of type t for region bodies (negate, not, abs; v + v for the
 * types that take none), written "name a, a" or "name a". */
static const char *body_unary(plumb_dtype t, uint32_t k, bool *twice)
{
    static const plumb_opcode un[] = {PLUMB_OP_NEGATE, PLUMB_OP_NOT, PLUMB_OP_ABS, PLUMB_OP_ADD};
    *twice = false;
    for (uint32_t i = 0; i < 4; i++) {
        plumb_opcode op = un[(k + i) % 4];
        if (accepts(op, t)) {
            *twice = op == PLUMB_OP_ADD;
            return plumb_op_name(op);
        }
    }
    return NULL;
}

/* A fixed constant of float type t holding a well-conditioned matrix per
 * batch: spd: A·Aᵀ + n·I (A uniform in [-1, 1]), symmetric positive
 * definite, the input cholesky needs; else a triangular solve's matrix,
 * off-diagonal in [-1, 1] and a diagonal of n + 1 to n + 2 (either sign),
 * so that its solve neither overflows nor loses the value. */
static uint32_t matrix_const(gctx *g, plumb_dtype t, uint32_t rank, const int64_t *dims, bool spd, uint64_t seed)
{
    uint32_t c = new_const(g, t, rank, dims, &(uint64_t){0});
    if (g->failed)
        return 0;
    rng r = {seed};
    int64_t n = dims[rank - 1], batches = 1;
    for (uint32_t i = 0; i + 2 < rank; i++)
        batches *= dims[i];
    double a[16], m[16];
    for (int64_t b = 0; b < batches; b++) {
        for (int64_t i = 0; i < n * n; i++)
            a[i] = (double)(next64(&r) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                if (spd) {
                    double s = i == j ? (double)n : 0.0;
                    for (int64_t k = 0; k < n; k++)
                        s += a[i * n + k] * a[j * n + k];
                    m[i * n + j] = s;
                } else {
                    m[i * n + j] = i == j ? (a[i * n + j] < 0 ? -1.0 : 1.0) * ((double)n + 1.0 + fabs(a[i * n + j]))
                                          : a[i * n + j];
                }
            }
        /* a matrix rounded to t, symmetric whatever the rounding does */
        for (int64_t i = 0; i < n * n; i++)
            plumb_store_bits(t, g->p->n[c].value->data, (size_t)(b * n * n + i), float_bits(t, m[i]));
    }
    g->p->n[c].fixed = true;
    return c;
}

/* Builds op set v2 op `op` on operand x into res (line, rtypes, operands);
 * false when it does not apply to x. Draws r1..r3 were made by try_op; the
 * geometry comes from a stream seeded by them, so a program keeps its
 * other choices whatever this op draws. */
static bool try_v2(gctx *g, plumb_opcode op, uint32_t xi, const fz_node *x, uint32_t r1, uint32_t r2, uint32_t r3,
                   fz_node *res)
{
    if (x->dyn || !accepts(op, x->dtype) || numel(x) == 0)
        return false;
    rng lr = {mix(r1, ((uint64_t)r2 << 16) | r3)};
    plumb_dtype t = x->dtype;
    char T[96], S[48], O[96];
    tyname(T, sizeof T, t, x->rank, x->dims);
    tyname(S, sizeof S, t, 0, NULL);
    const char *name = plumb_op_name(op);
    switch (op) {
    case PLUMB_OP_CONVOLUTION: {
        /* x is the lhs: its dimensions' roles (batch, feature, spatial)
         * a permutation, the kernel's and the output's others; feature or
         * batch groups dividing the sizes; a window per spatial dimension */
        if (x->rank < 3 || plumb_dtype_is_bool(t))
            return false;
        uint32_t R = x->rank, ns = R - 2, lp[FZ_MAX_RANK], kp[FZ_MAX_RANK], op_[FZ_MAX_RANK];
        uint32_t *perms[3] = {lp, kp, op_};
        for (int q = 0; q < 3; q++) {
            for (uint32_t i = 0; i < R; i++)
                perms[q][i] = i;
            for (uint32_t i = R - 1; i > 0; i--) {
                uint32_t j = below(&lr, i + 1), tmp = perms[q][i];
                perms[q][i] = perms[q][j];
                perms[q][j] = tmp;
            }
        }
        /* role k (0 batch / input feature, 1 feature / output feature,
         * 2.. spatial) sits at position perm[k] */
        int64_t B = x->dims[lp[0]], F = x->dims[lp[1]];
        int64_t div[8];
        uint32_t nd = 0;
        for (int64_t k = 1; k <= F && nd < 8; k++)
            if (F % k == 0)
                div[nd++] = k;
        int64_t fgc = div[below(&lr, nd)], bgc = 1;
        if (fgc == 1 && below(&lr, 3) == 0) {
            nd = 0;
            for (int64_t k = 1; k <= B && nd < 8; k++)
                if (B % k == 0)
                    div[nd++] = k;
            bgc = div[below(&lr, nd)];
        }
        int64_t OF = (1 + (int64_t)below(&lr, 2)) * fgc * bgc;
        win1 w[FZ_MAX_RANK];
        int64_t kd[FZ_MAX_RANK], od[FZ_MAX_RANK], outs[FZ_MAX_RANK];
        for (uint32_t s = 0; s < ns; s++)
            outs[s] = win_draw(&lr, x->dims[lp[2 + s]], true, true, &w[s]);
        kd[kp[0]] = F / fgc;
        kd[kp[1]] = OF;
        od[op_[0]] = B / bgc;
        od[op_[1]] = OF;
        for (uint32_t s = 0; s < ns; s++) {
            kd[kp[2 + s]] = w[s].w;
            od[op_[2 + s]] = outs[s];
        }
        fz_node k = *x, o = *x;
        memcpy(k.dims, kd, sizeof kd);
        memcpy(o.dims, od, sizeof od);
        if (numel(&k) > g->o->max_elems || numel(&o) > g->o->max_elems)
            return false;
        char dn[3][48];
        static const char role_l[2] = {'b', 'f'}, role_k[2] = {'i', 'o'};
        for (int q = 0; q < 3; q++) {
            char lab[FZ_MAX_RANK][12]; /* room for any %u: -O1 warns on format truncation otherwise */
            for (uint32_t rr = 0; rr < R; rr++) {
                if (rr < 2)
                    snprintf(lab[perms[q][rr]], sizeof lab[0], "%c", q == 1 ? role_k[rr] : role_l[rr]);
                else
                    snprintf(lab[perms[q][rr]], sizeof lab[0], "%u", rr - 2);
            }
            size_t len = (size_t)snprintf(dn[q], sizeof dn[q], "[");
            for (uint32_t i = 0; i < R; i++)
                len += (size_t)snprintf(dn[q] + len, sizeof dn[q] - len, "%s%s", i ? ", " : "", lab[i]);
            snprintf(dn[q] + len, sizeof dn[q] - len, "]");
        }
        win_text wt;
        win_lists(w, ns, &wt);
        char rv[64] = "";
        size_t e = 0;
        for (uint32_t s = 0; s < ns; s++)
            e += (size_t)snprintf(rv + e, sizeof rv - e, "%s%s", s ? ", " : "",
                                  below(&lr, 4) == 0 ? "true" : "false");
        char K[96];
        tyname(K, sizeof K, t, R, kd);
        tyname(O, sizeof O, t, R, od);
        res->arg[1] = matching(g, &k);
        res->n_args = 2;
        memcpy(res->dims, od, sizeof od);
        snprintf(res->line, sizeof res->line,
                 "$r = stablehlo.convolution($0, $1) dim_numbers = %sx%s->%s, window = {stride = [%s], pad = [%s], "
                 "lhs_dilate = [%s], rhs_dilate = [%s], reverse = [%s]} {batch_group_count = %lld : i64, "
                 "feature_group_count = %lld : i64} : (%s, %s) -> %s",
                 dn[0], dn[1], dn[2], wt.stride, wt.pad, wt.bd, wt.wd, rv, (long long)bgc, (long long)fgc, T, K, O);
        snprintf(res->rtypes, sizeof res->rtypes, "%s", O);
        return true;
    }
    case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER: {
        /* a window per dimension (dilations for reduce_window only); the
         * body's identity as a constant init, or a scalar parameter */
        bool sas = op == PLUMB_OP_SELECT_AND_SCATTER;
        if (x->rank == 0 || (sas && (plumb_dtype_is_bool(t) || !accepts(PLUMB_OP_ADD, t))))
            return false;
        static const plumb_opcode bodies[] = {PLUMB_OP_MAXIMUM, PLUMB_OP_ADD, PLUMB_OP_MINIMUM, PLUMB_OP_MULTIPLY};
        plumb_opcode body = sas ? PLUMB_OP_ADD : bodies[r2 % 4];
        /* The spec leaves the order of a window's reduction open: a float
         * product overflows or underflows in one order and not another
         * (inf against -0, both right), so multiply is for integers, where
         * it wraps the same in every order. */
        if (!accepts(body, t) || (body == PLUMB_OP_MULTIPLY && plumb_dtype_is_float(t)))
            body = PLUMB_OP_MAXIMUM;
        win1 w[FZ_MAX_RANK];
        fz_node o = *x;
        for (uint32_t i = 0; i < x->rank; i++)
            o.dims[i] = win_draw(&lr, x->dims[i], !sas, false, &w[i]);
        if (numel(&o) > g->o->max_elems)
            return false;
        win_text wt;
        win_lists(w, x->rank, &wt);
        tyname(O, sizeof O, t, o.rank, o.dims);
        uint32_t a_init = sas ? 2 : 1;
        if (!sas) {
            uint64_t id = identity_bits(t, body);
            res->arg[1] = r3 % 2 ? new_param(g, t, 0, NULL, 0) : new_const(g, t, 0, NULL, &id);
            res->n_args = 2;
            memcpy(res->dims, o.dims, sizeof res->dims);
            snprintf(res->rtypes, sizeof res->rtypes, "%s", O);
            snprintf(res->line, sizeof res->line,
                     "$r = \"stablehlo.reduce_window\"($0, $1) <{base_dilations = array<i64: %s>, "
                     "padding = dense<[%s]> : tensor<%ux2xi64>, window_dilations = array<i64: %s>, "
                     "window_dimensions = array<i64: %s>, window_strides = array<i64: %s>}> ({\n"
                     "  ^bb0($r_a: %s, $r_b: %s):\n    $r_m = %s $r_a, $r_b : %s\n    stablehlo.return $r_m : %s\n"
                     "  }) : (%s, %s) -> %s",
                     wt.bd, wt.pad, x->rank, wt.wd, wt.w, wt.stride, S, S, plumb_op_name(body), S, S, T, S, O);
            (void)a_init;
            return true;
        }
        static const char *cmps[] = {"GE", "GT", "LE", "LT"};
        const char *ct = plumb_dtype_is_float(t) && r3 % 2 ? ", TOTALORDER" : "";
        res->arg[1] = matching(g, &o);
        uint64_t zero = 0;
        res->arg[2] = r3 % 4 < 2 ? new_const(g, t, 0, NULL, &zero) : new_param(g, t, 0, NULL, 0);
        res->n_args = 3;
        snprintf(res->rtypes, sizeof res->rtypes, "%s", T);
        snprintf(res->line, sizeof res->line,
                 "$r = \"stablehlo.select_and_scatter\"($0, $1, $2) <{padding = dense<[%s]> : tensor<%ux2xi64>, "
                 "window_dimensions = array<i64: %s>, window_strides = array<i64: %s>}> ({\n"
                 "  ^bb0($r_a: %s, $r_b: %s):\n    $r_p = stablehlo.compare %s, $r_a, $r_b%s : (%s, %s) -> tensor<i1>\n"
                 "    stablehlo.return $r_p : tensor<i1>\n  }, {\n"
                 "  ^bb0($r_c: %s, $r_d: %s):\n    $r_m = stablehlo.add $r_c, $r_d : %s\n    stablehlo.return $r_m : %s\n"
                 "  }) : (%s, %s, %s) -> %s",
                 wt.pad, x->rank, wt.w, wt.stride, S, S, cmps[r1 % 4], ct, S, S, S, S, S, S, T, O, S, T);
        return true;
    }
    case PLUMB_OP_CHOLESKY: {
        /* x lends its type: the operand is a fixed A·Aᵀ + n·I of n 1..4,
         * batched once in three */
        int64_t dims[3], n = 1 + (int64_t)(r1 % 4);
        uint32_t rank = 2;
        if (r2 % 3 == 0)
            dims[0] = 1 + (int64_t)(r2 / 3 % 2), rank = 3;
        dims[rank - 2] = dims[rank - 1] = n;
        uint32_t a = matrix_const(g, t, rank, dims, true, mix(r3, 11));
        if (g->failed)
            return false;
        res->arg[0] = a;
        res->rank = rank;
        memset(res->dims, 0, sizeof res->dims);
        memcpy(res->dims, dims, rank * sizeof *dims);
        tyname(T, sizeof T, t, rank, dims);
        snprintf(res->rtypes, sizeof res->rtypes, "%s", T);
        snprintf(res->line, sizeof res->line, "$r = stablehlo.cholesky $0, lower = %s : %s",
                 r3 % 2 ? "true" : "false", T);
        return true;
    }
    case PLUMB_OP_TRIANGULAR_SOLVE: {
        /* x is b (rank 2, or 3 with a batch); a a fixed well-conditioned
         * matrix of the side's size; every side, triangle, transpose and
         * unit-diagonal combination */
        if (x->rank < 2 || x->rank > 3 || x->dims[x->rank - 1] > 4 || x->dims[x->rank - 2] > 4)
            return false;
        bool left = r1 % 2;
        int64_t dims[3];
        uint32_t rank = x->rank;
        for (uint32_t i = 0; i + 2 < rank; i++)
            dims[i] = x->dims[i];
        dims[rank - 2] = dims[rank - 1] = left ? x->dims[rank - 2] : x->dims[rank - 1];
        uint32_t a = matrix_const(g, t, rank, dims, false, mix(r3, 12));
        if (g->failed)
            return false;
        static const char *tr[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
        char A[96];
        tyname(A, sizeof A, t, rank, dims);
        res->arg[0] = a;
        res->arg[1] = xi;
        res->n_args = 2;
        snprintf(res->rtypes, sizeof res->rtypes, "%s", T);
        snprintf(res->line, sizeof res->line,
                 "$r = \"stablehlo.triangular_solve\"($0, $1) <{left_side = %s, lower = %s, "
                 "transpose_a = #stablehlo<transpose %s>, unit_diagonal = %s}> : (%s, %s) -> %s",
                 left ? "true" : "false", (r1 >> 1) % 2 ? "true" : "false", tr[r2 % 3],
                 (r1 >> 2) % 4 == 0 ? "true" : "false", A, T, T);
        return true;
    }
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD: {
        /* per-feature vectors from the program; the variance a constant
         * of positive values (0.5 .. 4.5), as a real variance is */
        if (x->rank == 0)
            return false;
        uint32_t fi = r1 % x->rank;
        fz_node f;
        memset(&f, 0, sizeof f);
        f.dtype = t;
        f.rank = 1;
        f.dims[0] = x->dims[fi];
        char F[48];
        tyname(F, sizeof F, t, 1, f.dims);
        static const char *eps[] = {"1.000000e-03", "1.000000e-05", "0.000000e+00", "1.000000e-01"};
        const char *ep = eps[r2 % 4];
        uint32_t var = 0;
        if (op != PLUMB_OP_BATCH_NORM_TRAINING) {
            var = new_const(g, t, 1, f.dims, &(uint64_t){0});
            if (g->failed)
                return false;
            rng vr = {mix(r3, 13)};
            for (int64_t i = 0; i < f.dims[0]; i++)
                plumb_store_bits(t, g->p->n[var].value->data, (size_t)i,
                                 float_bits(t, 0.5 + (double)below(&vr, 33) / 8.0));
        }
        if (op == PLUMB_OP_BATCH_NORM_INFERENCE) {
            res->arg[1] = matching(g, &f);
            res->arg[2] = matching(g, &f);
            res->arg[3] = matching(g, &f);
            res->arg[4] = var;
            res->n_args = 5;
            snprintf(res->rtypes, sizeof res->rtypes, "%s", T);
            snprintf(res->line, sizeof res->line,
                     "$r = \"stablehlo.batch_norm_inference\"($0, $1, $2, $3, $4) <{epsilon = %s : f32, "
                     "feature_index = %u : i64}> : (%s, %s, %s, %s, %s) -> %s",
                     ep, fi, T, F, F, F, F, T);
        } else if (op == PLUMB_OP_BATCH_NORM_TRAINING) {
            res->arg[1] = matching(g, &f);
            res->arg[2] = matching(g, &f);
            res->n_args = 3;
            res->n_res = 3;
            snprintf(res->rtypes, sizeof res->rtypes, "%s, %s, %s", T, F, F);
            snprintf(res->line, sizeof res->line,
                     "$r:3 = \"stablehlo.batch_norm_training\"($0, $1, $2) <{epsilon = %s : f32, "
                     "feature_index = %u : i64}> : (%s, %s, %s) -> (%s, %s, %s)",
                     ep, fi, T, F, F, T, F, F);
        } else {
            res->arg[1] = matching(g, &f);
            res->arg[2] = matching(g, &f);
            res->arg[3] = var;
            res->arg[4] = matching(g, x);
            res->n_args = 5;
            res->n_res = 3;
            snprintf(res->rtypes, sizeof res->rtypes, "%s, %s, %s", T, F, F);
            snprintf(res->line, sizeof res->line,
                     "$r:3 = \"stablehlo.batch_norm_grad\"($0, $1, $2, $3, $4) <{epsilon = %s : f32, "
                     "feature_index = %u : i64}> : (%s, %s, %s, %s, %s) -> (%s, %s, %s)",
                     ep, fi, T, F, F, F, T, T, F, F);
        }
        return true;
    }
    case PLUMB_OP_IF:
    case PLUMB_OP_CASE: {
        /* the predicate (index: any i32, out of range runs the last
         * branch) from the program; branch k returns x through a unary op
         * (k > 0) or as it is, x captured by name */
        fz_node sel;
        memset(&sel, 0, sizeof sel);
        sel.dtype = op == PLUMB_OP_IF ? PLUMB_I1 : PLUMB_I32;
        uint32_t nb = op == PLUMB_OP_IF ? 2 : 1 + r1 % 3;
        res->arg[0] = matching(g, &sel);
        res->arg[1] = xi;
        res->n_args = 2;
        size_t len = (size_t)snprintf(res->line, sizeof res->line, "$r = \"%s\"($0) (", name);
        for (uint32_t k = 0; k < nb; k++) {
            bool twice;
            const char *u = body_unary(t, r2 + k, &twice);
            bool plain = k == (r3 % nb) || !u;
            len += (size_t)snprintf(res->line + len, sizeof res->line - len, "%s{\n", k ? ", " : "");
            if (plain)
                len += (size_t)snprintf(res->line + len, sizeof res->line - len, "    stablehlo.return $1 : %s\n  }",
                                        T);
            else
                len += (size_t)snprintf(res->line + len, sizeof res->line - len,
                                        "    $r_u%u = %s $1%s : %s\n    stablehlo.return $r_u%u : %s\n  }", k, u,
                                        twice ? ", $1" : "", T, k, T);
        }
        snprintf(res->line + len, sizeof res->line - len, ") : (tensor<%s>) -> %s", op == PLUMB_OP_IF ? "i1" : "i32",
                 T);
        snprintf(res->rtypes, sizeof res->rtypes, "%s", T);
        return true;
    }
    case PLUMB_OP_WHILE: {
        /* a counted loop of 0 to 3 trips carrying (counter, x), the body a
         * unary op on x; both results are checked, other ops read x's */
        bool twice;
        const char *u = body_unary(t, r2, &twice);
        if (!u)
            return false;
        uint64_t zero = 0;
        uint32_t c = new_const(g, PLUMB_I32, 0, NULL, &zero);
        if (g->failed)
            return false;
        g->p->n[c].fixed = true;
        res->arg[1] = c;
        res->n_args = 2;
        res->n_res = 2;
        res->val = 1;
        snprintf(res->rtypes, sizeof res->rtypes, "tensor<i32>, %s", T);
        snprintf(res->line, sizeof res->line,
                 "$r:2 = \"stablehlo.while\"($1, $0) ({\n"
                 "  ^bb0($r_i: tensor<i32>, $r_x: %s):\n"
                 "    $r_n = stablehlo.constant dense<%u> : tensor<i32>\n"
                 "    $r_c = stablehlo.compare LT, $r_i, $r_n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                 "    stablehlo.return $r_c : tensor<i1>\n  }, {\n"
                 "  ^bb0($r_i: tensor<i32>, $r_x: %s):\n"
                 "    $r_o = stablehlo.constant dense<1> : tensor<i32>\n"
                 "    $r_j = stablehlo.add $r_i, $r_o : tensor<i32>\n"
                 "    $r_y = %s $r_x%s : %s\n"
                 "    stablehlo.return $r_j, $r_y : tensor<i32>, %s\n"
                 "  }) : (tensor<i32>, %s) -> (tensor<i32>, %s)",
                 T, r1 % 4, T, u, twice ? ", $r_x" : "", T, T, T, T);
        return true;
    }
    default:
        return false;
    }
}

/* Tries to add op on operand x; false when it does not apply to x (the
 * draws are made anyway). */
static bool try_op(gctx *g, plumb_opcode op, uint32_t xi)
{
    fz_prog *p = g->p;
    fz_node x = p->n[xi]; /* copy: adding nodes may not move it, but stay safe */
    const plumb_op_info *oi = plumb_op_get(op);
    uint32_t r1 = below(&g->r, 1u << 16), r2 = below(&g->r, 1u << 16), r3 = below(&g->r, 1u << 16);
    fz_node res;
    memset(&res, 0, sizeof res);
    res.kind = FZ_OP;
    res.op = op;
    res.dtype = x.dtype;
    res.rank = x.rank;
    memcpy(res.dims, x.dims, sizeof res.dims);
    res.dyn = x.dyn;
    res.arg[0] = xi;
    res.n_args = 1;
    /* Ops whose static attributes or result type need the actual size of
     * a `?` dimension are not built on one (docs/spec/dynamic.md). */
    if (x.dyn && (op == PLUMB_OP_BROADCAST_IN_DIM || op == PLUMB_OP_RESHAPE || op == PLUMB_OP_SLICE))
        return false;
    if (oi->kind == PLUMB_KIND_ELEMENTWISE && op != PLUMB_OP_SELECT && op != PLUMB_OP_CONVERT &&
        !accepts(op, x.dtype))
        return false;
    if (is_predicate(op))
        res.dtype = PLUMB_I1;
    /* the op set v2 ops (is_v2) write their whole line in try_v2 */
    if (is_v2(op)) {
        if (!try_v2(g, op, xi, &x, r1, r2, r3, &res))
            return false;
        goto out_add;
    }
    switch (op) {
    case PLUMB_OP_CONVERT: {
        plumb_dtype cand[PLUMB_DTYPE_COUNT];
        uint32_t nc = 0;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if ((g->o->dtypes & PLUMB_TY_BIT(t)) && t != (int)x.dtype)
                cand[nc++] = (plumb_dtype)t;
        if (!nc)
            return false;
        res.dtype = cand[r1 % nc];
        break;
    }
    case PLUMB_OP_COMPARE: {
        static const char *dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
        snprintf(res.pre, sizeof res.pre, "%s, ", dirs[r1 % 6]);
        if (plumb_dtype_is_float(x.dtype))
            snprintf(res.post, sizeof res.post, ", %s", r2 % 2 ? "TOTALORDER" : "FLOAT");
        res.arg[1] = matching(g, &x);
        res.n_args = 2;
        res.dtype = PLUMB_I1;
        break;
    }
    case PLUMB_OP_SELECT: {
        fz_node pred = x;
        pred.dtype = PLUMB_I1;
        res.arg[0] = matching(g, &pred);
        res.arg[1] = xi;
        res.arg[2] = matching(g, &x);
        res.n_args = 3;
        break;
    }
    case PLUMB_OP_CLAMP:
        res.arg[0] = matching(g, &x);
        res.arg[1] = xi;
        res.arg[2] = matching(g, &x);
        res.n_args = 3;
        break;
    case PLUMB_OP_BROADCAST_IN_DIM: {
        if (x.rank >= FZ_MAX_RANK)
            return false;
        uint32_t at = r1 % (x.rank + 1);
        int64_t size = 1 + (int64_t)(r2 % 3), map[FZ_MAX_RANK];
        if (numel(&x) * (uint64_t)size > g->o->max_elems)
            size = 1;
        res.rank = x.rank + 1;
        for (uint32_t i = 0, j = 0; i < res.rank; i++) {
            if (i == at) {
                res.dims[i] = size;
                continue;
            }
            /* a dimension of 1 may be expanded */
            res.dims[i] = x.dims[j] == 1 && (r3 >> j) % 2 ? 2 : x.dims[j];
            map[j++] = i;
        }
        uint64_t e = 1;
        for (uint32_t i = 0; i < res.rank; i++)
            e *= (uint64_t)res.dims[i];
        if (e > g->o->max_elems)
            return false;
        char l[64];
        list(l, sizeof l, map, x.rank);
        snprintf(res.post, sizeof res.post, ", dims = [%s]", l);
        break;
    }
    case PLUMB_OP_RESHAPE: {
        int64_t e = (int64_t)numel(&x);
        int64_t div[32];
        uint32_t nd = 0;
        for (int64_t k = 1; k <= e && nd < 32; k++)
            if (e % k == 0)
                div[nd++] = k;
        if (x.rank == 1 && nd > 2) {
            int64_t a = div[1 + r1 % (nd - 2)];
            res.rank = 2;
            res.dims[0] = a;
            res.dims[1] = e / a;
        } else if (x.rank == 1 && e == 1) {
            res.rank = 0;
        } else {
            res.rank = 1;
            res.dims[0] = e;
        }
        break;
    }
    case PLUMB_OP_TRANSPOSE: {
        if (x.rank < 2)
            return false;
        int64_t perm[FZ_MAX_RANK];
        for (uint32_t i = 0; i < x.rank; i++)
            perm[i] = i;
        uint32_t s = r1;
        for (uint32_t i = x.rank - 1; i > 0; i--) {
            uint32_t j = s % (i + 1);
            s /= (i + 1);
            int64_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        res.dyn = 0;
        for (uint32_t i = 0; i < x.rank; i++) {
            res.dims[i] = x.dims[perm[i]];
            res.dyn |= (uint8_t)(((x.dyn >> perm[i]) & 1) << i);
        }
        char l[64];
        list(l, sizeof l, perm, x.rank);
        snprintf(res.post, sizeof res.post, ", dims = [%s]", l);
        break;
    }
    case PLUMB_OP_SLICE: {
        if (x.rank == 0)
            return false;
        size_t len = 0;
        len += (size_t)snprintf(res.post + len, sizeof res.post - len, " [");
        uint32_t s = r1 ^ (r2 << 16);
        for (uint32_t i = 0; i < x.rank; i++) {
            int64_t n = x.dims[i];
            int64_t start = (int64_t)(s % (uint32_t)n);
            s /= (uint32_t)n;
            int64_t lim = start + 1 + (int64_t)(s % (uint32_t)(n - start));
            s /= (uint32_t)(n - start);
            int64_t stride = 1 + (int64_t)((r3 >> i) & 1);
            res.dims[i] = (lim - start + stride - 1) / stride;
            len += (size_t)snprintf(res.post + len, sizeof res.post - len, "%s%lld:%lld:%lld", i ? ", " : "",
                                    (long long)start, (long long)lim, (long long)stride);
        }
        snprintf(res.post + len, sizeof res.post - len, "]");
        break;
    }
    case PLUMB_OP_REVERSE: {
        if (x.rank == 0)
            return false;
        int64_t dl[FZ_MAX_RANK];
        uint32_t nd = 0;
        for (uint32_t i = 0; i < x.rank; i++)
            if ((r1 >> i) & 1)
                dl[nd++] = i;
        if (!nd)
            dl[nd++] = r2 % x.rank;
        char l[64];
        list(l, sizeof l, dl, nd);
        snprintf(res.post, sizeof res.post, ", dims = [%s]", l);
        break;
    }
    case PLUMB_OP_CONCATENATE: {
        if (x.rank == 0)
            return false;
        uint32_t dim = r1 % x.rank;
        if ((x.dyn >> dim) & 1)
            return false;
        fz_node y = x;
        y.dims[dim] = 1 + (int64_t)(r2 % 3);
        res.dims[dim] = x.dims[dim] + y.dims[dim];
        if (numel(&res) > g->o->max_elems)
            return false;
        res.arg[1] = r3 % 2 && y.dims[dim] == x.dims[dim] ? xi : matching(g, &y);
        res.n_args = 2;
        snprintf(res.post, sizeof res.post, ", dim = %u", dim);
        break;
    }
    case PLUMB_OP_REDUCE: {
        if (x.rank == 0)
            return false;
        res.body = r2 % 2 ? PLUMB_OP_MAXIMUM : PLUMB_OP_ADD;
        int64_t dl[FZ_MAX_RANK];
        uint32_t nd = 0;
        res.rank = 0;
        res.dyn = 0;
        for (uint32_t i = 0; i < x.rank; i++) {
            if ((r1 >> i) & 1) {
                dl[nd++] = i;
            } else {
                res.dyn |= (uint8_t)(((x.dyn >> i) & 1) << res.rank);
                res.dims[res.rank++] = x.dims[i];
            }
        }
        if (!nd) {
            dl[nd++] = 0;
            res.rank = 0;
            res.dyn = 0;
            for (uint32_t i = 1; i < x.rank; i++) {
                res.dyn |= (uint8_t)(((x.dyn >> i) & 1) << res.rank);
                res.dims[res.rank++] = x.dims[i];
            }
        }
        /* the identity of the body as the init value */
        uint64_t init = 0;
        if (res.body == PLUMB_OP_MAXIMUM) {
            if (plumb_dtype_is_float(x.dtype))
                init = float_bits(x.dtype, -INFINITY);
            else if (plumb_dtype_is_signed(x.dtype))
                init = 1ull << (plumb_dtype_get(x.dtype)->bits - 1);
        }
        res.arg[1] = new_const(g, x.dtype, 0, NULL, &init);
        res.n_args = 2;
        char l[64];
        list(l, sizeof l, dl, nd);
        snprintf(res.post, sizeof res.post, "%s", l);
        break;
    }
    case PLUMB_OP_PAD: {
        if (x.rank == 0 || x.dyn)
            return false;
        int64_t lo[FZ_MAX_RANK], hi[FZ_MAX_RANK], in[FZ_MAX_RANK];
        uint32_t s = r1 ^ (r2 << 16);
        for (uint32_t i = 0; i < x.rank; i++) {
            lo[i] = s % 3;
            hi[i] = (s / 3) % 3;
            in[i] = (s / 9) % 2;
            s /= 18;
            res.dims[i] = lo[i] + x.dims[i] + (x.dims[i] > 0 ? x.dims[i] - 1 : 0) * in[i] + hi[i];
        }
        if (numel(&res) > g->o->max_elems)
            return false;
        res.arg[1] = new_const(g, x.dtype, 0, NULL, NULL);
        res.n_args = 2;
        char a[24], b[24], c[24]; /* rank <= 4, each at most 2 */
        list(a, sizeof a, lo, x.rank);
        list(b, sizeof b, hi, x.rank);
        list(c, sizeof c, in, x.rank);
        snprintf(res.post, sizeof res.post, ", low = [%s], high = [%s], interior = [%s]", a, b, c);
        break;
    }
    case PLUMB_OP_IOTA: {
        /* the operand only lends its type: iota reads nothing */
        if (x.rank == 0 || x.dyn || !accepts(op, x.dtype))
            return false;
        res.n_args = 0;
        snprintf(res.post, sizeof res.post, "%u", r1 % x.rank);
        break;
    }
    case PLUMB_OP_SORT: {
        /* one operand, a total order (TOTALORDER for floats: NaNs sort
         * deterministically), stable */
        if (x.rank == 0)
            return false;
        snprintf(res.pre, sizeof res.pre, "%s", r2 % 2 ? "GT" : "LT");
        snprintf(res.post, sizeof res.post, "%u", r1 % x.rank);
        break;
    }
    case PLUMB_OP_GATHER:
    case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_SCATTER: {
        /* rows of dimension 0 at distinct constant indices (dynamic_gather:
         * the slice sizes a constant operand) */
        if (x.rank == 0 || x.dyn || x.dims[0] > 64)
            return false;
        uint32_t n = (uint32_t)x.dims[0], k = 1 + r1 % (n < 4 ? n : 4);
        fz_node rows = x;
        rows.dims[0] = k;
        if (op == PLUMB_OP_SCATTER && !accepts(PLUMB_OP_ADD, x.dtype) && r2 % 2)
            r2++; /* a bool scatter replaces */
        uint32_t ii = index_const(g, k, n, r3);
        if (g->failed)
            return false;
        if (op == PLUMB_OP_GATHER || op == PLUMB_OP_DYNAMIC_GATHER) {
            memcpy(res.dims, rows.dims, sizeof res.dims);
            res.arg[1] = ii;
            res.n_args = 2;
            if (op == PLUMB_OP_DYNAMIC_GATHER) {
                int64_t sz[FZ_MAX_RANK];
                memcpy(sz, x.dims, sizeof sz);
                sz[0] = 1;
                res.arg[2] = sizes_const(g, sz, x.rank);
                res.n_args = 3;
            }
        } else {
            res.body = r2 % 2 ? PLUMB_OP_ADD : PLUMB_OP_COUNT; /* COUNT: replace */
            res.arg[1] = ii;
            res.arg[2] = matching(g, &rows);
            res.n_args = 3;
        }
        break;
    }
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        /* broadcast_in_dim of a `?` operand: the output shape computed in
         * the program, get_dimension_size for each `?` (reshaped to
         * tensor<1xi32>) and constants for the static sizes, concatenated */
        if (!x.dyn || x.rank >= FZ_MAX_RANK)
            return false;
        uint32_t at = r1 % (x.rank + 1);
        int64_t size = 1 + (int64_t)(r2 % 3), map[FZ_MAX_RANK];
        if (numel(&x) * (uint64_t)size > g->o->max_elems)
            size = 1;
        res.rank = x.rank + 1;
        res.dyn = 0;
        for (uint32_t i = 0, j = 0; i < res.rank; i++) {
            if (i == at) {
                res.dims[i] = size;
                continue;
            }
            res.dims[i] = x.dims[j];
            res.dyn |= (uint8_t)(((x.dyn >> j) & 1) << i);
            map[j++] = i;
        }
        uint32_t shape = computed_shape(g, xi, &res, map, x.rank);
        res.arg[1] = shape;
        res.n_args = 2;
        char l[64];
        list(l, sizeof l, map, x.rank);
        snprintf(res.post, sizeof res.post, ", dims = [%s]", l);
        break;
    }
    case PLUMB_OP_REDUCE_PRECISION: {
        /* to a narrower (or the same) float format: 1.. exponent bits,
         * 0.. mantissa bits of the type */
        const plumb_dtype_info *ti = plumb_dtype_get(x.dtype);
        snprintf(res.post, sizeof res.post, ", format = e%um%u", 1 + r1 % ti->exp_bits, r2 % (ti->mant_bits + 1));
        break;
    }
    case PLUMB_OP_BITCAST_CONVERT: {
        /* to another allowed type of the same width, the shape kept */
        plumb_dtype cand[PLUMB_DTYPE_COUNT];
        uint32_t nc = 0;
        for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
            if ((g->o->dtypes & PLUMB_TY_BIT(t)) && t != (int)x.dtype && x.dtype != PLUMB_I1 && t != PLUMB_I1 &&
                plumb_dtype_get((plumb_dtype)t)->bits == plumb_dtype_get(x.dtype)->bits)
                cand[nc++] = (plumb_dtype)t;
        if (!nc || x.dyn)
            return false;
        res.dtype = cand[r1 % nc];
        break;
    }
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: {
        /* start indices are i32 scalars from the program (any value: they
         * are clamped into range); sizes within each dimension */
        if (x.rank == 0 || x.dyn || x.rank + 2 > FZ_MAX_ARGS || numel(&x) == 0)
            return false;
        fz_node part = x;
        uint32_t s = r1 ^ (r2 << 16);
        for (uint32_t i = 0; i < x.rank; i++) {
            part.dims[i] = 1 + (int64_t)(s % (uint32_t)x.dims[i]);
            s /= 4;
        }
        uint32_t a = 1;
        if (op == PLUMB_OP_DYNAMIC_SLICE) {
            memcpy(res.dims, part.dims, sizeof res.dims);
            char l[64];
            list(l, sizeof l, part.dims, x.rank);
            snprintf(res.post, sizeof res.post, ", sizes = [%s]", l);
        } else {
            res.arg[a++] = matching(g, &part);
        }
        fz_node idx;
        memset(&idx, 0, sizeof idx);
        idx.dtype = PLUMB_I32;
        for (uint32_t i = 0; i < x.rank; i++)
            res.arg[a++] = matching(g, &idx);
        res.n_args = a;
        break;
    }
    case PLUMB_OP_DOT: {
        /* vector or matrix times vector or matrix */
        if (x.rank == 0 || x.rank > 2 || x.dyn || plumb_dtype_is_bool(x.dtype))
            return false;
        fz_node y = x;
        y.rank = 1 + (r1 % 2);
        y.dims[0] = x.dims[x.rank - 1];
        y.dims[1] = 1 + (int64_t)(r2 % 4);
        res.rank = 0;
        if (x.rank == 2)
            res.dims[res.rank++] = x.dims[0];
        if (y.rank == 2)
            res.dims[res.rank++] = y.dims[1];
        res.arg[1] = matching(g, &y);
        res.n_args = 2;
        break;
    }
    case PLUMB_OP_RNG_BIT_GENERATOR: {
        /* bits of the operand's type and shape from a ui64 state (two
         * words for THREE_FRY, three for PHILOX): the new state and the
         * output; other ops read the output */
        if (x.dyn || !accepts(op, x.dtype))
            return false;
        fz_node st;
        memset(&st, 0, sizeof st);
        st.dtype = PLUMB_UI64;
        st.rank = 1;
        st.dims[0] = r1 % 2 ? 3 : 2;
        snprintf(res.post, sizeof res.post, "%s", r1 % 2 ? "PHILOX" : "THREE_FRY");
        res.arg[0] = matching(g, &st);
        res.n_args = 1;
        break;
    }
    case PLUMB_OP_TOP_K: {
        /* the k largest along the last dimension (static), values and
         * their indices */
        if (x.rank == 0 || ((x.dyn >> (x.rank - 1)) & 1))
            return false;
        int64_t last = x.dims[x.rank - 1];
        int64_t k = 1 + (int64_t)(r1 % (uint32_t)(last < 4 ? last : 4));
        res.dims[x.rank - 1] = k;
        snprintf(res.post, sizeof res.post, "%lld", (long long)k);
        break;
    }
    case PLUMB_OP_DYNAMIC_RESHAPE: {
        /* [?, a, b, ...] -> [?, a*b*...] (the `?` kept, its size computed) */
        if (x.dyn != 1 || numel(&x) == 0)
            return false;
        int64_t rest = 1;
        for (uint32_t i = 1; i < x.rank; i++)
            rest *= x.dims[i];
        res.rank = 2;
        res.dims[1] = rest;
        res.dyn = 1;
        int64_t map[1] = {0};
        res.arg[1] = computed_shape(g, xi, &res, map, 1);
        res.n_args = 2;
        break;
    }
    case PLUMB_OP_DYNAMIC_IOTA: {
        /* an iota of the operand's type, its shape computed: the operand
         * only lends its type and sizes */
        if (!x.dyn || !accepts(op, x.dtype))
            return false;
        int64_t map[FZ_MAX_RANK];
        for (uint32_t i = 0; i < x.rank; i++)
            map[i] = i;
        res.arg[0] = computed_shape(g, xi, &res, map, x.rank);
        res.n_args = 1;
        snprintf(res.post, sizeof res.post, ", dim = %u", r1 % x.rank);
        break;
    }
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD: {
        /* the whole of every `?` dimension (so it keeps its one actual
         * size), a static slice or pad of the others; the start, stride
         * and padding operands constants, the limits computed */
        if (!x.dyn || numel(&x) == 0)
            return false;
        int64_t lo[FZ_MAX_RANK], hi[FZ_MAX_RANK], st[FZ_MAX_RANK], map[FZ_MAX_RANK];
        uint32_t s = r1 ^ (r2 << 16);
        for (uint32_t i = 0; i < x.rank; i++) {
            map[i] = i;
            bool dyn = (x.dyn >> i) & 1;
            if (op == PLUMB_OP_REAL_DYNAMIC_SLICE) {
                lo[i] = dyn || x.dims[i] == 0 ? 0 : (int64_t)(s % (uint32_t)x.dims[i]);
                hi[i] = dyn ? x.dims[i] : lo[i] + 1 + (int64_t)((s / 7) % (uint32_t)(x.dims[i] - lo[i]));
                st[i] = dyn ? 1 : 1 + (int64_t)((s / 3) % 2);
                res.dims[i] = dyn ? x.dims[i] : (hi[i] - lo[i] + st[i] - 1) / st[i];
            } else {
                lo[i] = dyn ? 0 : s % 3;
                hi[i] = dyn ? 0 : (s / 3) % 3;
                st[i] = dyn ? 0 : (s / 9) % 2;
                res.dims[i] = dyn ? x.dims[i]
                                  : lo[i] + x.dims[i] + (x.dims[i] > 0 ? x.dims[i] - 1 : 0) * st[i] + hi[i];
            }
            s /= 18;
        }
        if (numel(&res) > g->o->max_elems)
            return false;
        if (op == PLUMB_OP_REAL_DYNAMIC_SLICE) {
            fz_node lim = res;   /* the limits: x's size for a `?`, else hi */
            memcpy(lim.dims, hi, sizeof lim.dims);
            res.arg[1] = sizes_const(g, lo, x.rank);
            res.arg[2] = computed_shape(g, xi, &lim, map, x.rank);
            res.arg[3] = sizes_const(g, st, x.rank);
            res.n_args = 4;
        } else {
            res.arg[1] = new_const(g, x.dtype, 0, NULL, NULL);
            res.arg[2] = sizes_const(g, lo, x.rank);
            res.arg[3] = sizes_const(g, hi, x.rank);
            res.arg[4] = sizes_const(g, st, x.rank);
            res.n_args = 5;
        }
        break;
    }
    case PLUMB_OP_DOT_GENERAL: {
        if (x.rank == 0 || x.rank > 2 || plumb_dtype_is_bool(x.dtype))
            return false;
        fz_node y = x;
        uint32_t lc = x.rank - 1;
        int64_t k = x.dims[lc];
        y.rank = 1 + (r1 % 2);
        y.dims[0] = k;
        y.dims[1] = 1 + (int64_t)(r2 % 4);
        y.dyn = (uint8_t)((x.dyn >> lc) & 1); /* a `?` contracted against a `?` of the same size */
        res.rank = 0;
        res.dyn = 0;
        for (uint32_t i = 0; i < x.rank; i++)
            if (i != lc) {
                res.dyn |= (uint8_t)(((x.dyn >> i) & 1) << res.rank);
                res.dims[res.rank++] = x.dims[i];
            }
        if (y.rank == 2)
            res.dims[res.rank++] = y.dims[1];
        res.arg[1] = matching(g, &y);
        res.n_args = 2;
        snprintf(res.post, sizeof res.post, ", contracting_dims = [%u] x [0]", lc);
        break;
    }
    default:
        if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->arity < 1 || oi->arity > 2)
            return false;
        if (oi->arity == 2) {
            res.arg[1] = matching(g, &x);
            res.n_args = 2;
        }
    }
out_add:
    if (g->failed)
        return false;
    fz_node *n = add_node(g, FZ_OP);
    if (!n) {
        g->failed = true;
        return false;
    }
    *n = res;
    n->index = p->n_results;
    p->n_results += fz_node_results(n);
    return true;
}

bool fz_generate(const fz_gen_opts *o, uint64_t seed, uint32_t bump, fz_prog *p, plumb_diag *d)
{
    memset(p, 0, sizeof *p);
    gctx g = {o, p, {seed}, bump, d, false};
    plumb_opcode ops[PLUMB_OP_COUNT];
    uint32_t n_ops = 0;
    for (int i = 0; i < PLUMB_OP_COUNT; i++)
        if (o->ops[i] && fz_op_supported((plumb_opcode)i) && (o->poly || !poly_only((plumb_opcode)i)))
            ops[n_ops++] = (plumb_opcode)i;
    /* The op set v2 ops are few among the elementwise ones: a quarter of
     * the draws pick among them alone, so a campaign reaches them. */
    plumb_opcode v2[PLUMB_OP_COUNT];
    uint32_t n_v2 = 0;
    for (uint32_t i = 0; i < n_ops; i++)
        if (is_v2(ops[i]))
            v2[n_v2++] = ops[i];
    plumb_dtype types[PLUMB_DTYPE_COUNT];
    uint32_t n_types = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++)
        if (o->dtypes & PLUMB_TY_BIT(t))
            types[n_types++] = (plumb_dtype)t;
    if (!n_ops || !n_types) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "fuzz: no op or no element type to generate");
        return false;
    }
    /* The primary type: one the first drawn op accepts when there is one. */
    plumb_dtype t = types[below(&g.r, n_types)];
    random_param(&g, t);
    uint32_t want = 1 + below(&g.r, o->max_nodes);
    /* Budget of attempts: an op that does not fit its operand is drawn again. */
    for (uint32_t tries = 0; p->n_results < want && tries < 8 * o->max_nodes && !g.failed; tries++) {
        if (p->n_nodes + 6 >= FZ_MAX_NODES)
            break;
        plumb_opcode op = ops[below(&g.r, n_ops)];
        if (n_v2 && below(&g.r, 4) == 0)
            op = v2[below(&g.r, n_v2)];
        /* operands: mostly the latest values, so programs chain */
        uint32_t back = below(&g.r, 3), xi = p->n_nodes - 1 - (back < p->n_nodes ? back : 0);
        if (below(&g.r, 8) == 0)
            xi = random_param(&g, types[below(&g.r, n_types)]);
        if (p->n[xi].kind == FZ_CONST && p->n[xi].rank == 0 && below(&g.r, 2))
            xi = random_param(&g, p->n[xi].dtype);
        try_op(&g, op, xi);
    }
    /* No op fitted (ops that take only some types or ranks, a narrow
     * --ops): draw fresh operands until one does, dropping each that did
     * not, so a program always has an op. Programs that had one never
     * come here: their draws are unchanged. */
    for (uint32_t extra = 0; p->n_results == 0 && extra < 512 && !g.failed; extra++) {
        uint32_t keep_nodes = p->n_nodes, keep_params = p->n_params;
        plumb_opcode op = ops[below(&g.r, n_ops)];
        if (n_v2 && below(&g.r, 4) == 0)
            op = v2[below(&g.r, n_v2)];
        uint32_t xi = random_param(&g, types[below(&g.r, n_types)]);
        if (g.failed || try_op(&g, op, xi))
            break;
        while (p->n_nodes > keep_nodes)
            plumb_tensor_free(p->n[--p->n_nodes].value);
        p->n_params = keep_params;
    }
    if (!g.failed) {
        /* one actual size for every `?`, within the smallest bound */
        int64_t minb = 0;
        for (uint32_t i = 0; i < p->n_nodes; i++)
            for (uint32_t j = 0; j < p->n[i].rank; j++)
                if ((p->n[i].dyn >> j) & 1 && (!minb || p->n[i].dims[j] < minb))
                    minb = p->n[i].dims[j];
        if (minb) {
            rng s = {mix(seed, 5)};
            p->poly_size = 1 + (int64_t)below(&s, (uint32_t)minb);
        }
    }
    if (g.failed) {
        if (d->code == PLUMB_OK)
            plumb_diag_set(d, PLUMB_ERR_LIMIT, (plumb_loc){0, 0}, "fuzz: program of seed %llu outgrew %d nodes",
                           (unsigned long long)seed, FZ_MAX_NODES);
        fz_prog_free(p);
        return false;
    }
    return true;
}

bool fz_fill_inputs(fz_prog *p, uint64_t value_seed, plumb_diag *d)
{
    rng r = {value_seed};
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        fz_node *n = &p->n[i];
        if (n->kind != FZ_PARAM)
            continue;
        plumb_tensor_free(p->inputs[n->index]);
        int64_t dims[FZ_MAX_RANK];
        for (uint32_t j = 0; j < n->rank; j++)
            dims[j] = (n->dyn >> j) & 1 ? p->poly_size : n->dims[j];
        p->inputs[n->index] = plumb_tensor_new(n->dtype, n->rank, dims, 0, d);
        if (!p->inputs[n->index])
            return false;
        fill_tensor(&r, p->inputs[n->index], below(&r, 3) != 0);
    }
    return true;
}

void fz_prog_free(fz_prog *p)
{
    for (uint32_t i = 0; i < p->n_nodes; i++)
        plumb_tensor_free(p->n[i].value);
    for (uint32_t i = 0; i < p->n_params; i++)
        plumb_tensor_free(p->inputs[i]);
    memset(p, 0, sizeof *p);
}

/* ---- text -------------------------------------------------------------------------- */

static void type_text(plumb_buf *b, const fz_node *n)
{
    plumb_buf_puts(b, "tensor<");
    for (uint32_t i = 0; i < n->rank; i++) {
        if ((n->dyn >> i) & 1)
            plumb_buf_puts(b, "?x");
        else
            plumb_buf_printf(b, "%lldx", (long long)n->dims[i]);
    }
    plumb_buf_printf(b, "%s", plumb_dtype_name(n->dtype));
    if (n->dyn) {
        plumb_buf_puts(b, ", #stablehlo.bounds<");
        for (uint32_t i = 0; i < n->rank; i++) {
            if ((n->dyn >> i) & 1)
                plumb_buf_printf(b, "%s%lld", i ? ", " : "", (long long)n->dims[i]);
            else
                plumb_buf_printf(b, "%s?", i ? ", " : "");
        }
        plumb_buf_puts(b, ">");
    }
    plumb_buf_puts(b, ">");
}

/* The result types of op node n: "T", top_k's "T, Ti", rng_bit_generator's
 * "state, T". */
static void result_types(plumb_buf *b, const fz_prog *p, const fz_node *n)
{
    if (n->rtypes[0]) {
        plumb_buf_puts(b, n->rtypes);
        return;
    }
    if (n->op == PLUMB_OP_RNG_BIT_GENERATOR) {
        type_text(b, &p->n[n->arg[0]]);
        plumb_buf_puts(b, ", ");
        type_text(b, n);
        return;
    }
    type_text(b, n);
    if (fz_node_results(n) == 2) {
        fz_node idx = *n;
        idx.dtype = PLUMB_I32;
        plumb_buf_puts(b, ", ");
        type_text(b, &idx);
    }
}

/* The values of op node n named name: "%v3", or a pair's "%v3#0, %v3#1". */
static void result_refs(plumb_buf *b, const fz_node *n, const char *name)
{
    uint32_t nr = fz_node_results(n);
    if (nr == 1)
        plumb_buf_puts(b, name);
    for (uint32_t i = 0; nr > 1 && i < nr; i++)
        plumb_buf_printf(b, "%s%s#%u", i ? ", " : "", name, i);
}

/* "%r = op operands attrs : types" for node k with the given names. */
static void op_line(plumb_buf *b, const fz_prog *p, uint32_t k, const char *res, char names[][16])
{
    const fz_node *n = &p->n[k];
    const fz_node *a0 = &p->n[n->arg[0]];
    if (n->line[0]) {
        /* an op set v2 line: $r the result's name, $K operand K's */
        plumb_buf_puts(b, "  ");
        for (const char *c = n->line; *c; c++) {
            if (c[0] == '$' && c[1] == 'r') {
                plumb_buf_puts(b, res);
                c++;
            } else if (c[0] == '$' && c[1] >= '0' && c[1] < '0' + (int)n->n_args) {
                plumb_buf_puts(b, names[c[1] - '0']);
                c++;
            } else {
                plumb_buf_printf(b, "%c", *c);
            }
        }
        plumb_buf_puts(b, "\n");
        return;
    }
    if (n->op == PLUMB_OP_TOP_K || n->op == PLUMB_OP_RNG_BIT_GENERATOR) {
        if (n->op == PLUMB_OP_TOP_K)
            plumb_buf_printf(b, "  %s:2 = chlo.top_k(%s, k = %s) : ", res, names[0], n->post);
        else
            plumb_buf_printf(b, "  %s:2 = stablehlo.rng_bit_generator %s, algorithm = %s : (", res, names[0], n->post);
        type_text(b, a0);
        plumb_buf_puts(b, n->op == PLUMB_OP_TOP_K ? " -> (" : ") -> (");
        result_types(b, p, n);
        plumb_buf_puts(b, ")\n");
        return;
    }
    plumb_buf_printf(b, "  %s = ", res);
    if (n->op == PLUMB_OP_REDUCE) {
        plumb_buf_printf(b, "stablehlo.reduce(%s init: %s) applies %s across dimensions = [%s] : (", names[0],
                         names[1], plumb_op_name(n->body), n->post);
        type_text(b, a0);
        plumb_buf_puts(b, ", ");
        type_text(b, &p->n[n->arg[1]]);
        plumb_buf_puts(b, ") -> ");
        type_text(b, n);
        plumb_buf_puts(b, "\n");
        return;
    }
    if (n->op == PLUMB_OP_IOTA) {
        plumb_buf_puts(b, "stablehlo.iota dim = ");
        plumb_buf_printf(b, "%s : ", n->post);
        type_text(b, n);
        plumb_buf_puts(b, "\n");
        return;
    }
    if (n->op == PLUMB_OP_SORT || n->op == PLUMB_OP_GATHER || n->op == PLUMB_OP_SCATTER ||
        n->op == PLUMB_OP_DYNAMIC_GATHER) {
        char s[32];
        fz_node sc;
        memset(&sc, 0, sizeof sc);
        sc.dtype = a0->dtype;
        plumb_buf_printf(b, "\"%s\"(", plumb_op_name(n->op));
        for (uint32_t i = 0; i < n->n_args; i++)
            plumb_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
        plumb_buf_puts(b, ") <{");
        if (n->op == PLUMB_OP_SORT) {
            plumb_buf_printf(b, "dimension = %s : i64, is_stable = true}> ({\n    ^bb0(%%l: ", n->post);
        } else {
            /* dimension 0 indexed; the other dimensions are the window */
            char w[64] = "";
            size_t len = 0;
            for (uint32_t i = 1; i < a0->rank; i++)
                len += (size_t)snprintf(w + len, sizeof w - len, "%s%u", i > 1 ? ", " : "", i);
            if (n->op == PLUMB_OP_DYNAMIC_GATHER) {
                plumb_buf_printf(b, "dimension_numbers = #stablehlo.gather<offset_dims = [%s], collapsed_slice_dims = [0], "
                                 "start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false}> : (", w);
                goto types;
            }
            if (n->op == PLUMB_OP_GATHER) {
                plumb_buf_printf(b, "dimension_numbers = #stablehlo.gather<offset_dims = [%s], collapsed_slice_dims = [0], "
                                 "start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
                                 "slice_sizes = array<i64: 1", w);
                for (uint32_t i = 1; i < a0->rank; i++)
                    plumb_buf_printf(b, ", %lld", (long long)a0->dims[i]);
                plumb_buf_puts(b, ">}> : (");
                goto types;
            }
            plumb_buf_printf(b, "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [%s], "
                             "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
                             "indices_are_sorted = false, unique_indices = true}> ({\n    ^bb0(%%l: ", w);
        }
        type_text(b, &sc);
        plumb_buf_puts(b, ", %r: ");
        type_text(b, &sc);
        if (n->op == PLUMB_OP_SORT) {
            plumb_buf_printf(b, "):\n      %%t = stablehlo.compare %s, %%l, %%r%s : (", n->pre,
                             plumb_dtype_is_float(sc.dtype) ? ", TOTALORDER" : "");
            type_text(b, &sc);
            plumb_buf_puts(b, ", ");
            type_text(b, &sc);
            plumb_buf_puts(b, ") -> tensor<i1>\n      stablehlo.return %t : tensor<i1>\n  }) : (");
        } else {
            plumb_buf_puts(b, "):\n");
            snprintf(s, sizeof s, "%%r");
            if (n->body == PLUMB_OP_ADD) {
                plumb_buf_puts(b, "      %s = stablehlo.add %l, %r : ");
                type_text(b, &sc);
                plumb_buf_puts(b, "\n");
                snprintf(s, sizeof s, "%%s");
            }
            plumb_buf_printf(b, "      stablehlo.return %s : ", s);
            type_text(b, &sc);
            plumb_buf_puts(b, "\n  }) : (");
        }
    types:
        for (uint32_t i = 0; i < n->n_args; i++) {
            if (i)
                plumb_buf_puts(b, ", ");
            type_text(b, &p->n[n->arg[i]]);
        }
        plumb_buf_puts(b, ") -> ");
        type_text(b, n);
        plumb_buf_puts(b, "\n");
        return;
    }
    plumb_buf_printf(b, "%s %s", plumb_op_name(n->op), n->pre);
    for (uint32_t i = 0; i < n->n_args; i++)
        plumb_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
    plumb_buf_printf(b, "%s : ", n->post);
    const plumb_op_info *oi = plumb_op_get(n->op);
    bool same = oi->kind == PLUMB_KIND_ELEMENTWISE && n->op != PLUMB_OP_CONVERT && n->op != PLUMB_OP_COMPARE &&
                !is_predicate(n->op) && n->op != PLUMB_OP_SELECT;
    if (same || n->op == PLUMB_OP_REVERSE) {
        type_text(b, n);
    } else if (n->op == PLUMB_OP_SELECT) {
        type_text(b, a0);
        plumb_buf_puts(b, ", ");
        type_text(b, n);
    } else {
        plumb_buf_puts(b, "(");
        for (uint32_t i = 0; i < n->n_args; i++) {
            if (i)
                plumb_buf_puts(b, ", ");
            type_text(b, &p->n[n->arg[i]]);
        }
        plumb_buf_puts(b, ") -> ");
        type_text(b, n);
    }
    plumb_buf_puts(b, "\n");
}

static void const_line(plumb_buf *b, const fz_node *n, const char *res)
{
    plumb_buf_printf(b, "  %s = stablehlo.constant ", res);
    plumb_dense_print(b, n->value, true);
    plumb_buf_puts(b, " : ");
    type_text(b, n);
    plumb_buf_puts(b, "\n");
}

bool fz_prog_text(const fz_prog *p, plumb_buf *b)
{
    plumb_buf_puts(b, "func.func @main(");
    bool first = true;
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        if (p->n[i].kind != FZ_PARAM)
            continue;
        plumb_buf_printf(b, "%s%%a%u: ", first ? "" : ", ", p->n[i].index);
        type_text(b, &p->n[i]);
        first = false;
    }
    plumb_buf_puts(b, ") -> (");
    first = true;
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        if (p->n[i].kind != FZ_OP)
            continue;
        if (!first)
            plumb_buf_puts(b, ", ");
        result_types(b, p, &p->n[i]);
        first = false;
    }
    plumb_buf_puts(b, ") {\n");
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        const fz_node *n = &p->n[i];
        char res[16];
        snprintf(res, sizeof res, "%%v%u", i);
        if (n->kind == FZ_CONST) {
            const_line(b, n, res);
        } else if (n->kind == FZ_OP) {
            char names[FZ_MAX_ARGS][16];
            for (uint32_t j = 0; j < n->n_args; j++) {
                const fz_node *a = &p->n[n->arg[j]];
                if (a->kind == FZ_PARAM)
                    snprintf(names[j], sizeof names[j], "%%a%u", a->index);
                else   /* a top_k is read through its values */
                    snprintf(names[j], sizeof names[j], fz_node_results(a) >= 2 ? "%%v%u#%u" : "%%v%u",
                             n->arg[j], fz_node_value(a));
            }
            op_line(b, p, i, res, names);
        }
    }
    plumb_buf_puts(b, "  return ");
    first = true;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        if (p->n[i].kind == FZ_OP) {
            char name[16];
            snprintf(name, sizeof name, "%%v%u", i);
            plumb_buf_puts(b, first ? "" : ", ");
            result_refs(b, &p->n[i], name);
            first = false;
        }
    plumb_buf_puts(b, " : ");
    first = true;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        if (p->n[i].kind == FZ_OP) {
            if (!first)
                plumb_buf_puts(b, ", ");
            result_types(b, p, &p->n[i]);
            first = false;
        }
    plumb_buf_puts(b, "\n}\n");
    return !b->failed && b->data;
}

bool fz_op_text(const fz_prog *p, uint32_t k, plumb_buf *b, uint32_t *in_nodes, uint32_t *n_in)
{
    const fz_node *n = &p->n[k];
    char names[FZ_MAX_ARGS][16];
    *n_in = 0;
    /* Constant operands are parameters too: the checker derives its bounds
     * from the inputs (Σ|x| of a reduce runs on |inputs|), so a baked init
     * of -max would hide the terms it cancels. */
    plumb_buf_puts(b, "func.func @main(");
    for (uint32_t j = 0; j < n->n_args; j++) {
        const fz_node *a = &p->n[n->arg[j]];
        snprintf(names[j], sizeof names[j], "%%x%u", *n_in);
        plumb_buf_printf(b, "%s%s: ", *n_in ? ", " : "", names[j]);
        type_text(b, a);
        in_nodes[(*n_in)++] = n->arg[j];
    }
    plumb_buf_puts(b, ") -> (");
    result_types(b, p, n);
    plumb_buf_puts(b, ") {\n");
    op_line(b, p, k, "%r", names);
    plumb_buf_puts(b, "  return ");
    result_refs(b, n, "%r");
    plumb_buf_puts(b, " : ");
    result_types(b, p, n);
    plumb_buf_puts(b, "\n}\n");
    return !b->failed && b->data;
}

bool fz_prog_verify(const char *text, size_t len, plumb_diag *d)
{
    ir_module *m = ir_parse(text, len, "generated program", NULL, d);
    bool ok = m && ir_verify(m, NULL, d);
    ir_module_free(m);
    return ok;
}

plumb_dtype fz_node_primary(const fz_prog *p, uint32_t k)
{
    const fz_node *n = &p->n[k];
    /* iota: its operand is a shape; rng_bit_generator: a state */
    if (!n->n_args || n->op == PLUMB_OP_DYNAMIC_IOTA || n->op == PLUMB_OP_RNG_BIT_GENERATOR)
        return n->dtype;
    if (n->op == PLUMB_OP_SELECT)
        return p->n[n->arg[1]].dtype;
    if (n->op == PLUMB_OP_IF || n->op == PLUMB_OP_CASE)   /* operand 0 is the predicate or index */
        return n->dtype;
    return p->n[n->arg[0]].dtype;
}

/* ---- mutators -------------------------------------------------------------------------- */

static const char *const mut_names[FZ_MUT_COUNT] = {"params", "identical", "constant", "shape",
                                                     "poly-size", "bake", "lift", "batch-field",
                                                     "attr", "insert", "remove"};

const char *fz_mutator_name(fz_mutator m) { return m < FZ_MUT_COUNT ? mut_names[m] : "?"; }

uint32_t fz_mutator_predicts(fz_mutator m, uint32_t poly)
{
    switch (m) {
    case FZ_MUT_PARAMS:
    case FZ_MUT_IDENTICAL:
        return 0;
    case FZ_MUT_POLY_SIZE:
        /* a size seen for the first time: one executable serves every size
         * within the bounds, a per-shape backend builds this one (a backend
         * claiming none never runs the mutant: the campaign skips it) */
        return poly >= PLUMB_BACKEND_POLY_BOUNDED ? 0 : 1;
    default:
        return 1;
    }
}

bool fz_mutators_parse(const char *s, uint32_t *mask, char *bad, size_t cap)
{
    *mask = 0;
    if (!strcmp(s, "all")) {
        *mask = (1u << FZ_MUT_COUNT) - 1;
        return true;
    }
    if (!strcmp(s, "none"))
        return true;
    while (*s) {
        size_t n = strcspn(s, ",");
        int hit = -1;
        for (int m = 0; m < FZ_MUT_COUNT; m++)
            if (strlen(mut_names[m]) == n && !strncmp(s, mut_names[m], n))
                hit = m;
        if (hit < 0) {
            snprintf(bad, cap, "%.*s", (int)n, s);
            return false;
        }
        *mask |= 1u << hit;
        s += n;
        if (*s == ',')
            s++;
    }
    return true;
}

/* Parameter indices follow node order: renumbers them after a node changed
 * kind or was added, moving each parameter's input with it (by_node holds
 * the input of every parameter node, indexed by node). */
static void renumber_params(fz_prog *p, plumb_tensor **by_node)
{
    p->n_params = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        if (p->n[i].kind == FZ_PARAM) {
            p->n[i].index = p->n_params;
            p->inputs[p->n_params++] = by_node[i];
        }
    for (uint32_t i = p->n_params; i < FZ_MAX_NODES; i++)
        p->inputs[i] = NULL;
}

static void inputs_by_node(const fz_prog *p, plumb_tensor **by_node)
{
    for (uint32_t i = 0; i < p->n_nodes; i++)
        by_node[i] = p->n[i].kind == FZ_PARAM ? p->inputs[p->n[i].index] : NULL;
}

/* True when no op reads node k. */
static bool unread(const fz_prog *p, uint32_t k)
{
    for (uint32_t i = k + 1; i < p->n_nodes; i++)
        if (p->n[i].kind == FZ_OP)
            for (uint32_t j = 0; j < p->n[i].n_args; j++)
                if (p->n[i].arg[j] == k)
                    return false;
    return true;
}

/* Appends op node `op` (elementwise, same type as its operands) reading
 * args; false when the program is full. */
static bool append_ew(fz_prog *p, plumb_opcode op, const uint32_t *args, uint32_t n_args)
{
    if (p->n_nodes >= FZ_MAX_NODES)
        return false;
    fz_node *n = &p->n[p->n_nodes];
    *n = p->n[args[0]];
    n->kind = FZ_OP;
    n->op = op;
    n->body = PLUMB_OP_COUNT;
    n->value = NULL;
    n->pre[0] = n->post[0] = n->line[0] = n->rtypes[0] = 0;
    n->n_res = n->val = 0;
    memcpy(n->arg, args, n_args * sizeof *args);
    n->n_args = n_args;
    n->index = p->n_results++;
    p->n_nodes++;
    return true;
}

/* Removes node k, which nothing reads any more, keeping by_node (the
 * inputs by node) and every operand index in step. */
static void remove_node(fz_prog *p, plumb_tensor **by_node, uint32_t k)
{
    memmove(&p->n[k], &p->n[k + 1], (p->n_nodes - k - 1) * sizeof p->n[0]);
    memmove(&by_node[k], &by_node[k + 1], (p->n_nodes - k - 1) * sizeof by_node[0]);
    p->n_nodes--;
    for (uint32_t i = k; i < p->n_nodes; i++)
        for (uint32_t j = 0; j < p->n[i].n_args; j++)
            if (p->n[i].arg[j] > k)
                p->n[i].arg[j]--;
}

/* A batch field the program already has: op k = add/or(x, f) with f a
 * parameter nothing else reads. */
static bool droppable_field(const fz_prog *p, uint32_t k)
{
    const fz_node *n = &p->n[k];
    if (n->kind != FZ_OP || (n->op != PLUMB_OP_ADD && n->op != PLUMB_OP_OR) || n->n_args != 2)
        return false;
    uint32_t f = n->arg[1];
    if (p->n[f].kind != FZ_PARAM || f == n->arg[0])
        return false;
    for (uint32_t i = 0; i < p->n_nodes; i++)
        for (uint32_t j = 0; i != k && p->n[i].kind == FZ_OP && j < p->n[i].n_args; j++)
            if (p->n[i].arg[j] == f)
                return false;
    return true;
}

/* Picks uniformly among the n candidates in cand (n > 0). */
static uint32_t pick(rng *r, const uint32_t *cand, uint32_t n) { return cand[below(r, n)]; }

/* The structural and polymorphic mutators, applied to the base program p
 * (inputs filled): 1 done, 0 not applicable, -1 with d set on failure. */
static int structural(const fz_gen_opts *o, fz_prog *p, fz_mutator m, rng *r, plumb_diag *d)
{
    uint32_t cand[FZ_MAX_NODES], nc = 0;
    plumb_tensor *by_node[FZ_MAX_NODES];
    (void)o;
    switch (m) {
    case FZ_MUT_POLY_SIZE: {
        /* another size for every `?`, within the smallest bound */
        int64_t minb = 0;
        for (uint32_t i = 0; i < p->n_nodes; i++)
            for (uint32_t j = 0; j < p->n[i].rank; j++)
                if ((p->n[i].dyn >> j) & 1 && (!minb || p->n[i].dims[j] < minb))
                    minb = p->n[i].dims[j];
        if (minb < 2)
            return 0;
        int64_t s = 1 + (int64_t)below(r, (uint32_t)minb - 1);
        p->poly_size = s >= p->poly_size ? s + 1 : s;
        return fz_fill_inputs(p, mix(r->s, 1), d) ? 1 : -1;
    }
    case FZ_MUT_BAKE: {
        /* a static parameter becomes a constant holding its input */
        for (uint32_t i = 0; i < p->n_nodes; i++)
            if (p->n[i].kind == FZ_PARAM && !p->n[i].dyn)
                cand[nc++] = i;
        if (!nc)
            return 0;
        uint32_t k = pick(r, cand, nc);
        inputs_by_node(p, by_node);
        p->n[k].kind = FZ_CONST;
        p->n[k].value = by_node[k];
        by_node[k] = NULL;
        renumber_params(p, by_node);
        return 1;
    }
    case FZ_MUT_LIFT: {
        /* a constant becomes a parameter whose input is its value */
        for (uint32_t i = 0; i < p->n_nodes; i++)
            if (p->n[i].kind == FZ_CONST && !p->n[i].fixed)
                cand[nc++] = i;
        if (!nc)
            return 0;
        uint32_t k = pick(r, cand, nc);
        inputs_by_node(p, by_node);
        by_node[k] = p->n[k].value;
        p->n[k].value = NULL;
        p->n[k].kind = FZ_PARAM;
        renumber_params(p, by_node);
        return 1;
    }
    case FZ_MUT_BATCH_FIELD: {
        /* An optional batch field (a mask, a weight) leaves the program
         * when it has one, half the time: the parameter and the op that
         * applies it go, the op's readers read its other operand. */
        for (uint32_t i = 0; i < p->n_nodes; i++)
            if (p->n_results > 1 && droppable_field(p, i))
                cand[nc++] = i;
        bool drop = nc && below(r, 2);
        if (drop) {
            uint32_t k = pick(r, cand, nc), f = p->n[k].arg[1], x = p->n[k].arg[0];
            for (uint32_t i = k + 1; i < p->n_nodes; i++)
                for (uint32_t j = 0; p->n[i].kind == FZ_OP && j < p->n[i].n_args; j++)
                    if (p->n[i].arg[j] == k)
                        p->n[i].arg[j] = x;
            inputs_by_node(p, by_node);
            plumb_tensor_free(by_node[f]);
            by_node[f] = NULL;
            remove_node(p, by_node, k); /* f < k: f keeps its place */
            remove_node(p, by_node, f);
            renumber_params(p, by_node);
            p->n_results = 0;
            for (uint32_t i = 0; i < p->n_nodes; i++)
                if (p->n[i].kind == FZ_OP) {
                    p->n[i].index = p->n_results;
                    p->n_results += fz_node_results(&p->n[i]);
                }
            return 1;
        }
        /* else one joins: a new parameter of an op result's type and the
         * op that applies it */
        nc = 0;
        for (uint32_t i = 0; i < p->n_nodes; i++)
            if (p->n[i].kind == FZ_OP &&
                (accepts(PLUMB_OP_ADD, p->n[i].dtype) || accepts(PLUMB_OP_OR, p->n[i].dtype)))
                cand[nc++] = i;
        if (!nc || p->n_nodes + 2 > FZ_MAX_NODES)
            return 0;
        uint32_t k = pick(r, cand, nc);
        fz_node *f = &p->n[p->n_nodes];
        *f = p->n[k];
        f->kind = FZ_PARAM;
        f->n_args = 0;
        f->pre[0] = f->post[0] = f->line[0] = f->rtypes[0] = 0;
        f->n_res = f->val = 0;
        f->value = NULL;
        f->index = p->n_params++;
        uint32_t fi = p->n_nodes++;
        uint32_t args[2] = {k, fi};
        append_ew(p, accepts(PLUMB_OP_ADD, f->dtype) ? PLUMB_OP_ADD : PLUMB_OP_OR, args, 2);
        return fz_fill_inputs(p, mix(r->s, 2), d) ? 1 : -1;
    }
    case FZ_MUT_ATTR: {
        /* an attribute changed, the types kept: compare's direction, sort's
         * order, reverse's dimensions, reduce's body, transpose's permutation (on
         * a transpose no op reads, its result type follows) */
        for (uint32_t i = 0; i < p->n_nodes; i++) {
            const fz_node *n = &p->n[i];
            if (n->kind != FZ_OP)
                continue;
            if (n->op == PLUMB_OP_COMPARE || n->op == PLUMB_OP_REDUCE || n->op == PLUMB_OP_SORT ||
                (n->op == PLUMB_OP_REVERSE && n->rank >= 2) ||
                (n->op == PLUMB_OP_TRANSPOSE && unread(p, i)))
                cand[nc++] = i;
        }
        if (!nc)
            return 0;
        fz_node *n = &p->n[pick(r, cand, nc)];
        const fz_node *x = &p->n[n->arg[0]];
        switch (n->op) {
        case PLUMB_OP_COMPARE: {
            static const char *dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
            uint32_t cur = 0;
            for (uint32_t j = 0; j < 6; j++)
                if (!strncmp(n->pre, dirs[j], 2))
                    cur = j;
            uint32_t nd = (cur + 1 + below(r, 5)) % 6;
            snprintf(n->pre, sizeof n->pre, "%s, ", dirs[nd]);
            break;
        }
        case PLUMB_OP_SORT: /* ascending <-> descending */
            snprintf(n->pre, sizeof n->pre, "%s", n->pre[0] == 'L' ? "GT" : "LT");
            break;
        case PLUMB_OP_REDUCE:
            /* add <-> maximum; the init stays (a valid, different reduction) */
            n->body = n->body == PLUMB_OP_ADD ? PLUMB_OP_MAXIMUM : PLUMB_OP_ADD;
            break;
        case PLUMB_OP_REVERSE: {
            /* another non-empty set of dimensions */
            uint32_t cur = 0, all = (1u << x->rank) - 1;
            for (const char *s = strchr(n->post, '['); s && *s && *s != ']'; s++)
                if (*s >= '0' && *s <= '9')
                    cur |= 1u << (*s - '0');
            uint32_t nm = 1 + below(r, all - 1);
            if (nm >= cur)
                nm++;
            int64_t dl[FZ_MAX_RANK];
            uint32_t nd = 0;
            for (uint32_t j = 0; j < x->rank; j++)
                if ((nm >> j) & 1)
                    dl[nd++] = j;
            char l[64];
            list(l, sizeof l, dl, nd);
            snprintf(n->post, sizeof n->post, ", dims = [%s]", l);
            break;
        }
        default: { /* transpose: the next permutation in a rotation */
            int64_t perm[FZ_MAX_RANK];
            uint32_t j = 0;
            for (const char *s = strchr(n->post, '['); s && *s && *s != ']' && j < x->rank; s++)
                if (*s >= '0' && *s <= '9')
                    perm[j++] = *s - '0';
            /* rotating a permutation by one position always changes it (rank >= 2) */
            int64_t first = perm[0];
            for (j = 0; j + 1 < x->rank; j++)
                perm[j] = perm[j + 1];
            perm[x->rank - 1] = first;
            n->dyn = 0;
            for (j = 0; j < x->rank; j++) {
                n->dims[j] = x->dims[perm[j]];
                n->dyn |= (uint8_t)(((x->dyn >> perm[j]) & 1) << j);
            }
            char l[64];
            list(l, sizeof l, perm, x->rank);
            snprintf(n->post, sizeof n->post, ", dims = [%s]", l);
        }
        }
        return 1;
    }
    case FZ_MUT_INSERT: {
        /* a unary op on a value of the program, appended */
        static const plumb_opcode un[] = {PLUMB_OP_NEGATE, PLUMB_OP_NOT, PLUMB_OP_ABS};
        for (uint32_t i = 0; i < p->n_nodes; i++)
            for (uint32_t j = 0; j < 3; j++)
                if (accepts(un[j], p->n[i].dtype)) {
                    cand[nc++] = i;
                    break;
                }
        if (!nc || p->n_nodes + 1 > FZ_MAX_NODES)
            return 0;
        uint32_t k = pick(r, cand, nc);
        plumb_opcode op = PLUMB_OP_NEGATE;
        for (int j = 2; j >= 0; j--)
            if (accepts(un[j], p->n[k].dtype))
                op = un[j];
        return append_ew(p, op, &k, 1) ? 1 : 0;
    }
    case FZ_MUT_REMOVE: {
        /* the last op (no op reads it) goes; a program keeps at least one */
        uint32_t n_ops = 0;
        for (uint32_t i = 0; i < p->n_nodes; i++)
            n_ops += p->n[i].kind == FZ_OP;
        if (n_ops < 2)
            return 0;
        uint32_t k = p->n_nodes;
        while (k-- > 0 && p->n[k].kind != FZ_OP)
            ;
        uint32_t gone = fz_node_results(&p->n[k]);
        /* only parameters and constants follow it: they read nothing */
        memmove(&p->n[k], &p->n[k + 1], (p->n_nodes - k - 1) * sizeof p->n[0]);
        p->n_nodes--;
        p->n_results -= gone;
        return 1;
    }
    default:
        return 0;
    }
}

bool fz_base(const fz_gen_opts *o, uint64_t seed, fz_prog *out, plumb_diag *d)
{
    if (!fz_generate(o, seed, 0, out, d))
        return false;
    if (!fz_fill_inputs(out, mix(seed, 1), d)) {
        fz_prog_free(out);
        return false;
    }
    return true;
}

bool fz_mutate(const fz_gen_opts *o, uint64_t seed, fz_mutator m, fz_prog *out, bool *applicable, plumb_diag *d)
{
    *applicable = true;
    switch (m) {
    case FZ_MUT_IDENTICAL:
        return fz_base(o, seed, out, d);
    case FZ_MUT_PARAMS:
        if (!fz_generate(o, seed, 0, out, d))
            return false;
        if (!fz_fill_inputs(out, mix(seed, 2), d)) {
            fz_prog_free(out);
            return false;
        }
        return true;
    case FZ_MUT_CONSTANT: {
        if (!fz_base(o, seed, out, d))
            return false;
        rng r = {mix(seed, 3)};
        for (uint32_t i = 0; i < out->n_nodes; i++) {
            fz_node *n = &out->n[i];
            if (n->kind != FZ_CONST || n->fixed || !plumb_tensor_numel(n->value))
                continue;
            /* change one element to another bit pattern of the same class mix */
            uint64_t e = below(&r, (uint32_t)plumb_tensor_numel(n->value));
            uint64_t old = plumb_load_bits(n->dtype, n->value->data, (size_t)e), v = old;
            for (int tries = 0; v == old && tries < 64; tries++)
                v = value_bits(&r, n->dtype, (int)below(&r, VC_COUNT));
            if (v == old)
                v = old ^ 1;
            plumb_store_bits(n->dtype, n->value->data, (size_t)e, v);
            return true;
        }
        fz_prog_free(out);
        *applicable = false;
        return false;
    }
    case FZ_MUT_SHAPE: {
        if (!fz_generate(o, seed, 1, out, d))
            return false;
        fz_prog base;
        if (!fz_generate(o, seed, 0, &base, d)) {
            fz_prog_free(out);
            return false;
        }
        /* a program whose parameters are all scalars has no shape to change */
        plumb_buf a, b;
        plumb_buf_init(&a);
        plumb_buf_init(&b);
        bool ok = fz_prog_text(out, &a) && fz_prog_text(&base, &b);
        bool differ = ok && strcmp(a.data, b.data) != 0;
        plumb_buf_free(&a);
        plumb_buf_free(&b);
        fz_prog_free(&base);
        if (!ok) {
            fz_prog_free(out);
            plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "fuzz: out of memory printing a program");
            return false;
        }
        if (!differ) {
            fz_prog_free(out);
            *applicable = false;
            return false;
        }
        if (!fz_fill_inputs(out, mix(seed, 1), d)) {
            fz_prog_free(out);
            return false;
        }
        return true;
    }
    case FZ_MUT_POLY_SIZE:
    case FZ_MUT_BAKE:
    case FZ_MUT_LIFT:
    case FZ_MUT_BATCH_FIELD:
    case FZ_MUT_ATTR:
    case FZ_MUT_INSERT:
    case FZ_MUT_REMOVE: {
        if (!fz_base(o, seed, out, d))
            return false;
        rng r = {mix(seed, 10 + (uint64_t)m)};
        int rc = structural(o, out, m, &r, d);
        if (rc <= 0) {
            fz_prog_free(out);
            *applicable = rc < 0; /* 0: not applicable; -1: failed, d says why */
            return false;
        }
        return true;
    }
    default:
        *applicable = false;
        return false;
    }
}
