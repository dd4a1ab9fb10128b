/* Graph passes of the compiled runtime: algebraic simplification, transpose /
 * reshape / broadcast folding, constant folding through the reference, CSE
 * and dead-code elimination. docs/runtime-passes.md says, rewrite by rewrite,
 * why each one leaves every result bit-identical to the unoptimized program.
 *
 * The rewriting sweep walks the body once in program order. A replacement
 * map (old value -> new value, by value id) is applied to an op's operands
 * just before the op is looked at, so by SSA order every operand an op sees
 * is already in its final, simplified form and a single sweep reaches a
 * fixed point for chains. Dead ops are removed afterwards. */
#include <math.h>
#include <string.h>
#include <xxhash.h>

#include "plumb/checkcmp.h"
#include "plumb/ref.h"
#include "rt_passes.h"

/* Constant folding limits: folding runs the reference (correctly rounded,
 * sometimes through MPFR), so its cost must stay a small part of a compile,
 * and a folded constant is baked into the program (and its cache key), so a
 * large folded result would bloat every compile of it. A broadcast of a
 * scalar to a large shape therefore stays a broadcast (fusion reads it by
 * index arithmetic) instead of becoming a large constant. */
#define RT_FOLD_MAX_RESULT_ELEMS 4096u      /* per result */
#define RT_FOLD_MAX_OPERAND_ELEMS 65536u    /* all operands together */

/* Splat constants with more elements than this become a broadcast of a
 * scalar constant, so that they cost no memory traffic in fused loops.
 * Equal to the folding cap, so folding never undoes it. */
#define RT_SPLAT_MIN_ELEMS RT_FOLD_MAX_RESULT_ELEMS

typedef struct pass_ctx {
    ir_module *m;
    ir_func *f;
    uint64_t max_bytes;
    plumb_diag *d;
    ir_value **repl;        /* by value id: replacement, or NULL */
    uint32_t n_repl;
    int8_t *quiet;          /* by value id: 0 unknown, 1 never a signaling NaN, -1 may be */
    uint32_t n_quiet;
    ir_op **cse;            /* open-addressing table of ops already seen */
    uint32_t cse_cap;
    bool changed;
    bool nomem;
} pass_ctx;

/* ---- small helpers -------------------------------------------------------- */

static bool grow_ptrs(pass_ctx *c, void **arr, uint32_t *n, uint32_t want, size_t elem)
{
    if (want <= *n)
        return true;
    uint32_t nn = *n ? *n : 64;
    while (nn < want)
        nn *= 2;
    void *p = plumb_realloc(*arr, (size_t)*n * elem, (size_t)nn * elem);
    if (!p) {
        c->nomem = true;
        return false;
    }
    memset((char *)p + (size_t)*n * elem, 0, (size_t)(nn - *n) * elem);
    *arr = p;
    *n = nn;
    return true;
}

static ir_value *resolve(const pass_ctx *c, ir_value *v)
{
    while (v && v->id < c->n_repl && c->repl[v->id])
        v = c->repl[v->id];
    return v;
}

static void replace(pass_ctx *c, ir_value *old, ir_value *nv)
{
    if (old == nv)
        return;
    if (!grow_ptrs(c, (void **)&c->repl, &c->n_repl, old->id + 1, sizeof *c->repl))
        return;
    c->repl[old->id] = nv;
    c->changed = true;
}

static void remap_block(pass_ctx *c, ir_block *b);

static void remap_op(pass_ctx *c, ir_op *op)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        op->operands[i] = resolve(c, op->operands[i]);
    for (uint32_t r = 0; r < op->n_regions; r++)
        remap_block(c, &op->regions[r]);
}

static void remap_block(pass_ctx *c, ir_block *b)
{
    for (ir_op *op = b->first; op; op = op->next)
        remap_op(c, op);
}

static bool is_const(const ir_value *v)
{
    return v->def && v->def->code == PLUMB_OP_CONSTANT && v->def->a.value;
}

static uint64_t type_numel(const ir_type *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0)
            return UINT64_MAX;
        if (plumb_mul_overflow_u64(n, (uint64_t)t->dims[i], &n))
            return UINT64_MAX;
    }
    return n;
}

/* The number of `?` dimensions of t. */
static uint32_t dyn_dims(const ir_type *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->rank; i++)
        n += t->dims[i] == PLUMB_DIM_DYN;
    return n;
}

/* True when every element of tensor t has the bits of element 0. */
static bool tensor_is_splat(const plumb_tensor *t)
{
    size_t es = plumb_dtype_size(t->dtype);
    if (t->nbytes < es)
        return false;
    for (size_t off = es; off < t->nbytes; off += es)
        if (memcmp((const char *)t->data + off, t->data, es) != 0)
            return false;
    return true;
}

/* The scalar bits every element of v holds when v is a splat constant or a
 * broadcast_in_dim of one (seen through the replacement map). */
static bool splat_bits(const ir_value *v, uint64_t *bits)
{
    for (int depth = 0; depth < 8 && v && v->def; depth++) {
        const ir_op *d = v->def;
        if (d->code == PLUMB_OP_CONSTANT) {
            const plumb_tensor *t = d->a.value;
            if (!t || !tensor_is_splat(t))
                return false;
            *bits = plumb_load_bits(t->dtype, t->data, 0);
            return true;
        }
        if (d->code != PLUMB_OP_BROADCAST_IN_DIM && d->code != PLUMB_OP_RESHAPE)
            return false;
        v = d->operands[0];
    }
    return false;
}

/* The bit pattern of the value one / zero in dtype t. */
static bool bits_of(plumb_dtype t, double v, uint64_t *out)
{
    switch (t) {
    case PLUMB_F32: *out = plumb_f32_bits((float)v); return true;
    case PLUMB_F64: *out = plumb_f64_bits(v); return true;
    case PLUMB_F16: *out = plumb_f64_to_f16(v); return true;
    case PLUMB_BF16: *out = plumb_f64_to_bf16(v); return true;
    default:
        if (plumb_dtype_is_bool(t) || plumb_dtype_is_int(t)) {
            if (v != 0.0 && v != 1.0)
                return false;   /* only 0 and 1 are asked for */
            *out = (uint64_t)v;
            return true;
        }
        return false;
    }
}

static bool is_splat_of(const ir_value *v, double value)
{
    uint64_t have, want;
    return splat_bits(v, &have) && bits_of(v->type.dtype, value, &want) && have == want;
}

/* -0.0 in a float type (integers have no negative zero: false). */
static bool is_splat_neg_zero(const ir_value *v)
{
    if (!plumb_dtype_is_float(v->type.dtype))
        return false;
    uint64_t have;
    if (!splat_bits(v, &have))
        return false;
    switch (v->type.dtype) {
    case PLUMB_F32: return have == 0x80000000u;
    case PLUMB_F64: return have == 0x8000000000000000ull;
    default: return have == 0x8000u;   /* f16, bf16 */
    }
}

/* ---- signaling NaN analysis ------------------------------------------------
 * x*1, x/1, x-0, x+(-0) and convert-to-the-same-type return x bit for bit
 * for every x except a signaling NaN, which the arithmetic op quiets
 * (docs/spec/elementwise.md, "NaN"). Those rewrites are therefore made only
 * where x can never be a signaling NaN: integers, results of arithmetic ops
 * (which always quiet), constants whose bytes hold none, and bit-preserving
 * ops of such values. Parameters may be anything. */

static bool has_snan(const plumb_tensor *t)
{
    size_t n = (size_t)plumb_tensor_numel(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t b = plumb_load_bits(t->dtype, t->data, i);
        switch (t->dtype) {
        case PLUMB_F32:
            if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) && !(b & 0x400000u))
                return true;
            break;
        case PLUMB_F64:
            if ((b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull) &&
                !(b & 0x8000000000000ull))
                return true;
            break;
        case PLUMB_F16:
            if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) && !(b & 0x200u))
                return true;
            break;
        case PLUMB_BF16:
            if ((b & 0x7f80u) == 0x7f80u && (b & 0x7fu) && !(b & 0x40u))
                return true;
            break;
        default:
            return false;
        }
    }
    return false;
}

static bool never_snan(pass_ctx *c, const ir_value *v, int depth)
{
    if (!plumb_dtype_is_float(v->type.dtype))
        return true;
    if (!v->def || depth > 32)
        return false;
    if (v->id < c->n_quiet && c->quiet[v->id])
        return c->quiet[v->id] > 0;
    const ir_op *d = v->def;
    bool q = false;
    switch (d->code) {
    /* Arithmetic: a NaN operand comes out quieted, an invalid operation gives
     * the default (quiet) NaN. */
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_ATAN2:
    case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_CHLO_TAN: case PLUMB_OP_ERF:
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH:
    case PLUMB_OP_ASINH: case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH:
    case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE: case PLUMB_OP_LGAMMA: case PLUMB_OP_DIGAMMA: case PLUMB_OP_ERF_INV:
    case PLUMB_OP_NEXT_AFTER:
    case PLUMB_OP_BESSEL_I1E: case PLUMB_OP_ZETA: case PLUMB_OP_POLYGAMMA:
    case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL: case PLUMB_OP_ROUND_NEAREST_EVEN:
    case PLUMB_OP_ROUND_NEAREST_AFZ:
    case PLUMB_OP_CONVERT:
    case PLUMB_OP_IOTA:
        q = true;
        break;
    case PLUMB_OP_CONSTANT:
        q = d->a.value && !has_snan(d->a.value);
        break;
    /* Bit-preserving: quiet in, quiet out. */
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_BROADCAST_IN_DIM:
    case PLUMB_OP_RESHAPE: case PLUMB_OP_TRANSPOSE: case PLUMB_OP_SLICE: case PLUMB_OP_REVERSE:
    case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP: case PLUMB_OP_CONCATENATE: case PLUMB_OP_PAD:
        q = true;
        for (uint32_t i = 0; i < d->n_operands && q; i++)
            if (!(d->code == PLUMB_OP_SELECT && i == 0))
                q = never_snan(c, d->operands[i], depth + 1);
        break;
    default:
        q = false;
        break;
    }
    if (grow_ptrs(c, (void **)&c->quiet, &c->n_quiet, v->id + 1, sizeof *c->quiet))
        c->quiet[v->id] = q ? 1 : -1;
    return q;
}

/* ---- building replacement ops ------------------------------------------------ */

static ir_op *new_before(pass_ctx *c, ir_op *at, plumb_opcode code, ir_value *const *ops, uint32_t n,
                         const ir_type *rt)
{
    ir_op *op = ir_op_new(c->m, code, ops, n, rt, 1);
    if (!op) {
        c->nomem = true;
        return NULL;
    }
    op->loc = at->loc;
    op->dloc = at->dloc;   /* same module: the strings stay valid */
    ir_block_insert_before(at->parent, at, op);
    return op;
}

/* A constant op holding a copy of t (arena-owned, freed with the module). */
static ir_op *const_before(pass_ctx *c, ir_op *at, const plumb_tensor *t, const ir_type *ty)
{
    plumb_tensor *nt = plumb_arena_alloc(c->m->arena, sizeof *nt);
    if (!nt) {
        c->nomem = true;
        return NULL;
    }
    *nt = *t;
    nt->owned = false;
    nt->data = NULL;
    if (t->nbytes) {
        if (!(nt->data = plumb_arena_alloc(c->m->arena, t->nbytes))) {
            c->nomem = true;
            return NULL;
        }
        memcpy(nt->data, t->data, t->nbytes);
    }
    ir_op *op = new_before(c, at, PLUMB_OP_CONSTANT, NULL, 0, ty);
    if (op)
        op->a.value = nt;
    return op;
}

/* ---- algebraic simplification and folding of movement chains -------------- */

static bool is_identity_perm(const ir_ints *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->v[i] != (int64_t)i)
            return false;
    return true;
}

/* Returns the value op's result can be replaced by, or NULL. May build a
 * new op (inserted before op). */
static ir_value *simplify(pass_ctx *c, ir_op *op)
{
    if (op->n_results != 1 || op->n_regions)
        return NULL;
    ir_value *r = op->results[0];
    const ir_type *rt = &r->type;
    ir_value *a = op->n_operands > 0 ? op->operands[0] : NULL;
    ir_value *b = op->n_operands > 1 ? op->operands[1] : NULL;
    /* With a `?` dimension an op of several operands also checks at run
     * time that their shapes agree (ir_shape_infer); replacing it by one
     * of them would drop that check, so only static ones are simplified.
     * One-operand rewrites below keep the operand's shape by construction. */
    if (op->n_operands > 1 && !ir_type_is_static(rt))
        return NULL;
    switch (op->code) {
    case PLUMB_OP_MULTIPLY:
        /* x * 1 -> x (never x * 0 -> 0: NaN, inf and the sign of zero). */
        if (is_splat_of(b, 1.0) && ir_type_equal(&a->type, rt) && never_snan(c, a, 0))
            return a;
        if (is_splat_of(a, 1.0) && ir_type_equal(&b->type, rt) && never_snan(c, b, 0))
            return b;
        return NULL;
    case PLUMB_OP_DIVIDE:
        if (is_splat_of(b, 1.0) && ir_type_equal(&a->type, rt) && never_snan(c, a, 0))
            return a;
        return NULL;
    case PLUMB_OP_SUBTRACT:
        /* x - (+0) -> x: -0 - +0 = -0. (x - (-0) is x + 0: not exact.) */
        if (is_splat_of(b, 0.0) && ir_type_equal(&a->type, rt) && never_snan(c, a, 0))
            return a;
        return NULL;
    case PLUMB_OP_ADD:
        /* x + (-0) -> x for every x (+0 + -0 = +0); x + (+0) is not (-0 + +0 = +0).
         * Integers: x + 0 is x. */
        if (plumb_dtype_is_float(rt->dtype)) {
            if (is_splat_neg_zero(b) && ir_type_equal(&a->type, rt) && never_snan(c, a, 0))
                return a;
            if (is_splat_neg_zero(a) && ir_type_equal(&b->type, rt) && never_snan(c, b, 0))
                return b;
        } else if (!plumb_dtype_is_bool(rt->dtype)) {
            if (is_splat_of(b, 0.0) && ir_type_equal(&a->type, rt))
                return a;
            if (is_splat_of(a, 0.0) && ir_type_equal(&b->type, rt))
                return b;
        }
        return NULL;
    case PLUMB_OP_NEGATE:
        /* negate only flips the sign bit (floats) or wraps (integers). */
        if (a->def && a->def->code == PLUMB_OP_NEGATE && ir_type_equal(&a->def->operands[0]->type, rt))
            return a->def->operands[0];
        return NULL;
    case PLUMB_OP_CONVERT:
        if (ir_type_equal(&a->type, rt) && never_snan(c, a, 0))
            return a;
        return NULL;
    case PLUMB_OP_RESHAPE:
        /* equal types with at most one `?` mean equal shapes (the element
         * counts agree); with two, 2x6 -> 3x4 has the type ?x? -> ?x? */
        if (ir_type_equal(&a->type, rt) && dyn_dims(rt) <= 1)
            return a;
        /* reshape(reshape(x)) -> reshape(x): both keep row-major order. */
        if (a->def && a->def->code == PLUMB_OP_RESHAPE && ir_type_is_static(rt)) {
            ir_value *x = a->def->operands[0];
            if (ir_type_equal(&x->type, rt))
                return x;
            ir_op *n = new_before(c, op, PLUMB_OP_RESHAPE, &x, 1, rt);
            return n ? n->results[0] : NULL;
        }
        return NULL;
    case PLUMB_OP_TRANSPOSE:
        if (is_identity_perm(&op->a.dims) && ir_type_equal(&a->type, rt))
            return a;
        if (a->def && a->def->code == PLUMB_OP_TRANSPOSE) {
            /* y = T(x, p1), z = T(y, p2): z dim i is x dim p1[p2[i]]. */
            const ir_ints *p1 = &a->def->a.dims, *p2 = &op->a.dims;
            ir_value *x = a->def->operands[0];
            if (p1->n != p2->n || p1->n != rt->rank)
                return NULL;
            int64_t q[PLUMB_MAX_RANK];
            for (uint32_t i = 0; i < p2->n; i++) {
                if (p2->v[i] < 0 || (uint32_t)p2->v[i] >= p1->n)
                    return NULL;
                q[i] = p1->v[p2->v[i]];
            }
            ir_ints qi = {q, p2->n};
            if (is_identity_perm(&qi) && ir_type_equal(&x->type, rt))
                return x;
            ir_op *n = new_before(c, op, PLUMB_OP_TRANSPOSE, &x, 1, rt);
            if (!n)
                return NULL;
            n->a.dims = ir_ints_make(c->m, q, p2->n);
            if (!n->a.dims.v)
                c->nomem = true;
            return n->results[0];
        }
        return NULL;
    case PLUMB_OP_BROADCAST_IN_DIM:
        if (ir_type_equal(&a->type, rt) && is_identity_perm(&op->a.dims))
            return a;
        if (a->def && a->def->code == PLUMB_OP_IOTA && a->def->n_operands == 0 && ir_type_is_static(rt) &&
            ir_type_is_static(&a->type) && op->a.dims.n == a->type.rank && a->type.dtype == rt->dtype &&
            a->def->a.dimension >= 0 && (uint64_t)a->def->a.dimension < a->type.rank) {
            /* broadcast of an iota along k, k not stretched: element i is
             * i[dims[k]] converted, an iota along dims[k] (of which a
             * reduce or a group then generates the indices) */
            int64_t k = a->def->a.dimension, to = op->a.dims.v[k];
            if (to >= 0 && (uint64_t)to < rt->rank && a->type.dims[k] == rt->dims[to]) {
                ir_op *n = new_before(c, op, PLUMB_OP_IOTA, NULL, 0, rt);
                if (!n)
                    return NULL;
                n->a.dimension = to;
                return n->results[0];
            }
        }
        if (a->def && a->def->code == PLUMB_OP_BROADCAST_IN_DIM && ir_type_is_static(rt)) {
            /* x dim i -> y dim d1[i] -> z dim d2[d1[i]]; a size-1 dim may
             * stretch at either step, which the composed map still allows. */
            const ir_ints *d1 = &a->def->a.dims, *d2 = &op->a.dims;
            ir_value *x = a->def->operands[0];
            if (d1->n != x->type.rank || d2->n != a->type.rank)
                return NULL;
            int64_t q[PLUMB_MAX_RANK];
            for (uint32_t i = 0; i < d1->n; i++) {
                if (d1->v[i] < 0 || (uint32_t)d1->v[i] >= d2->n)
                    return NULL;
                q[i] = d2->v[d1->v[i]];
            }
            ir_op *n = new_before(c, op, PLUMB_OP_BROADCAST_IN_DIM, &x, 1, rt);
            if (!n)
                return NULL;
            n->a.dims = ir_ints_make(c->m, q, d1->n);
            if (d1->n && !n->a.dims.v)
                c->nomem = true;
            return n->results[0];
        }
        return NULL;
    case PLUMB_OP_SELECT: {
        /* select copies bits, so a constant predicate picks an operand. */
        uint64_t pb;
        ir_value *t = op->operands[1], *f = op->operands[2];
        if (!splat_bits(a, &pb))
            return NULL;
        ir_value *pick = pb ? t : f;
        return ir_type_equal(&pick->type, rt) ? pick : NULL;
    }
    default:
        return NULL;
    }
}

/* A large splat constant becomes broadcast_in_dim of a scalar constant:
 * the same bits, no memory traffic once fused. */
static ir_value *split_splat(pass_ctx *c, ir_op *op)
{
    const plumb_tensor *t = op->a.value;
    const ir_type *rt = &op->results[0]->type;
    if (!t || rt->rank == 0 || !ir_type_is_static(rt) || type_numel(rt) <= RT_SPLAT_MIN_ELEMS ||
        !tensor_is_splat(t))
        return NULL;
    plumb_tensor s = *t;
    s.rank = 0;
    s.nbytes = plumb_dtype_size(t->dtype);
    ir_type st = ir_type_scalar(rt->dtype);
    ir_op *sc = const_before(c, op, &s, &st);
    if (!sc)
        return NULL;
    ir_value *sv = sc->results[0];
    ir_op *bc = new_before(c, op, PLUMB_OP_BROADCAST_IN_DIM, &sv, 1, rt);
    return bc ? bc->results[0] : NULL;
}

/* ---- constant folding through the reference ----------------------------------
 * The op is copied into a one-function module whose operands are constants
 * and run by plumb_ref_run: the folded values are the reference's own. */

typedef struct clone_map {
    ir_value **to;          /* by source value id */
    uint32_t n;
} clone_map;

static ir_value *cmap(const clone_map *cm, ir_value *v)
{
    return v->id < cm->n && cm->to[v->id] ? cm->to[v->id] : NULL;
}

static bool clone_block(ir_module *dst, const ir_block *src, ir_block *out, clone_map *cm)
{
    for (uint32_t i = 0; i < src->n_args; i++) {
        ir_value *a = ir_block_add_arg(dst, out, &src->args[i]->type);
        if (!a || src->args[i]->id >= cm->n)
            return false;
        cm->to[src->args[i]->id] = a;
    }
    for (const ir_op *o = src->first; o; o = o->next) {
        ir_value *ops[64];
        ir_type rts[16];
        if (o->n_operands > 64 || o->n_results > 16)
            return false;
        for (uint32_t i = 0; i < o->n_operands; i++)
            if (!(ops[i] = cmap(cm, o->operands[i])))
                return false;   /* refers to a value outside the region */
        for (uint32_t i = 0; i < o->n_results; i++)
            rts[i] = o->results[i]->type;
        ir_op *n = ir_op_new(dst, o->code, ops, o->n_operands, rts, o->n_results);
        if (!n)
            return false;
        n->a = o->a;
        n->loc = o->loc;
        for (uint32_t i = 0; i < o->n_results; i++) {
            if (o->results[i]->id >= cm->n)
                return false;
            cm->to[o->results[i]->id] = n->results[i];
        }
        if (o->n_regions && !ir_op_add_regions(dst, n, o->n_regions))
            return false;
        for (uint32_t r = 0; r < o->n_regions; r++)
            if (!clone_block(dst, &o->regions[r], &n->regions[r], cm))
                return false;
        ir_block_append(out, n);
    }
    return true;
}

static bool foldable(const ir_op *op)
{
    plumb_kind k = plumb_op_get(op->code)->kind;
    if (k == PLUMB_KIND_CHECK || k == PLUMB_KIND_FUNC)
        return false;
    if (op->code == PLUMB_OP_CONSTANT || op->n_operands == 0 || op->n_results == 0 || op->n_results > 16)
        return false;
    /* A broadcast only repeats its operand: as a constant it would cost
     * memory and cache-key bytes, while fused loops read it for free. */
    if (op->code == PLUMB_OP_BROADCAST_IN_DIM &&
        type_numel(&op->results[0]->type) != type_numel(&op->operands[0]->type))
        return false;
    uint64_t in_elems = 0;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (!is_const(op->operands[i]))
            return false;
        in_elems += type_numel(&op->operands[i]->type);
        if (in_elems > RT_FOLD_MAX_OPERAND_ELEMS)
            return false;
    }
    for (uint32_t i = 0; i < op->n_results; i++)
        if (!ir_type_is_static(&op->results[i]->type) ||
            type_numel(&op->results[i]->type) > RT_FOLD_MAX_RESULT_ELEMS)
            return false;
    return true;
}

/* Folds op; false only on allocation failure (a reference error leaves the
 * op as it is, to fail the same way at run time). */
static bool fold(pass_ctx *c, ir_op *op)
{
    ir_module *t = ir_module_new(NULL);
    if (!t)
        return false;
    bool ok = false;
    clone_map cm = {NULL, 0};
    plumb_ref_result res;
    memset(&res, 0, sizeof res);
    ir_func *fn = ir_func_new(t, "main", true);
    ir_value *ops[64];
    ir_type rts[16];
    if (!fn || op->n_operands > 64)
        goto done;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_value *src = op->operands[i];
        ir_op *k = ir_op_new(t, PLUMB_OP_CONSTANT, NULL, 0, &src->type, 1);
        if (!k)
            goto done;
        k->a.value = src->def->a.value;   /* borrowed for the run */
        ir_block_append(&fn->body, k);
        ops[i] = k->results[0];
    }
    for (uint32_t i = 0; i < op->n_results; i++)
        rts[i] = op->results[i]->type;
    ir_op *n = ir_op_new(t, op->code, ops, op->n_operands, rts, op->n_results);
    if (!n)
        goto done;
    n->a = op->a;
    n->loc = op->loc;
    n->dloc = op->dloc;   /* t is freed before op's module */
    if (op->n_regions) {
        cm.n = c->m->next_value_id;
        if (!(cm.to = plumb_calloc(cm.n, sizeof *cm.to)) || !ir_op_add_regions(t, n, op->n_regions))
            goto done;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (!clone_block(t, &op->regions[r], &n->regions[r], &cm)) {
                ok = true;      /* a region that captures outer values: not folded */
                goto done;
            }
    }
    ir_block_append(&fn->body, n);
    ir_op *ret = ir_op_new(t, PLUMB_OP_FUNC_RETURN, n->results, n->n_results, NULL, 0);
    if (!ret || !ir_func_set_results(t, fn, rts, op->n_results))
        goto done;
    ir_block_append(&fn->body, ret);

    plumb_diag rd;
    memset(&rd, 0, sizeof rd);
    plumb_ref_options ro;
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.max_bytes = c->max_bytes;
    if (!plumb_ref_run(t, "main", NULL, 0, &ro, &res, &rd)) {
        ok = rd.code != PLUMB_ERR_NOMEM;
        goto done;
    }
    ir_value *nv[16];
    for (uint32_t i = 0; i < op->n_results; i++) {
        ir_op *k = const_before(c, op, res.outputs[i], &op->results[i]->type);
        if (!k)
            goto done;
        nv[i] = k->results[0];
    }
    for (uint32_t i = 0; i < op->n_results; i++)
        replace(c, op->results[i], nv[i]);
    ok = true;
done:
    if (res.outputs)
        plumb_ref_result_free(&res);
    plumb_free(cm.to, (size_t)cm.n * sizeof *cm.to);
    ir_module_free(t);
    return ok;
}

/* ---- common subexpression elimination -------------------------------------- */

static bool ints_eq(const ir_ints *a, const ir_ints *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Every field of ir_attrs (ir.h); a field added there must be added here, or
 * two ops differing only in it would be merged. */
static bool attrs_eq(const ir_attrs *x, const ir_attrs *y)
{
    const ir_ints *ix[] = {&x->dims, &x->start, &x->limit, &x->strides, &x->sizes, &x->low, &x->high,
                           &x->interior, &x->lhs_batch, &x->rhs_batch, &x->lhs_contract, &x->rhs_contract,
                           &x->offset_dims, &x->collapsed_slice_dims, &x->operand_batching_dims,
                           &x->start_indices_batching_dims, &x->start_index_map, &x->update_window_dims,
                           &x->inserted_window_dims, &x->input_batching_dims,
                           &x->scatter_indices_batching_dims, &x->scatter_dims_to_operand_dims,
                           &x->known_expanding, &x->known_nonexpanding, &x->window_dims,
                           &x->window_strides, &x->base_dilations, &x->window_dilations, &x->padding,
                           &x->fft_length, &x->lhs_ragged, &x->rhs_group};
    const ir_ints *iy[] = {&y->dims, &y->start, &y->limit, &y->strides, &y->sizes, &y->low, &y->high,
                           &y->interior, &y->lhs_batch, &y->rhs_batch, &y->lhs_contract, &y->rhs_contract,
                           &y->offset_dims, &y->collapsed_slice_dims, &y->operand_batching_dims,
                           &y->start_indices_batching_dims, &y->start_index_map, &y->update_window_dims,
                           &y->inserted_window_dims, &y->input_batching_dims,
                           &y->scatter_indices_batching_dims, &y->scatter_dims_to_operand_dims,
                           &y->known_expanding, &y->known_nonexpanding, &y->window_dims,
                           &y->window_strides, &y->base_dilations, &y->window_dilations, &y->padding,
                           &y->fft_length, &y->lhs_ragged, &y->rhs_group};
    for (size_t i = 0; i < sizeof ix / sizeof ix[0]; i++)
        if (!ints_eq(ix[i], iy[i]))
            return false;
    if (x->dimension != y->dimension || x->cmp_dir != y->cmp_dir || x->cmp_type != y->cmp_type ||
        x->precision[0] != y->precision[0] || x->precision[1] != y->precision[1] ||
        x->has_precision != y->has_precision || x->index_vector_dim != y->index_vector_dim ||
        x->indices_are_sorted != y->indices_are_sorted || x->unique_indices != y->unique_indices ||
        x->is_stable != y->is_stable || x->rng_alg != y->rng_alg ||
        x->exponent_bits != y->exponent_bits || x->mantissa_bits != y->mantissa_bits || x->k != y->k ||
        x->min_ulp != y->min_ulp || x->max_ulp != y->max_ulp ||
        memcmp(&x->tolerance, &y->tolerance, sizeof x->tolerance) != 0 || !str_eq(x->callee, y->callee) ||
        !str_eq(x->message, y->message) || x->fft_type != y->fft_type || x->n_inits != y->n_inits ||
        x->is_reverse != y->is_reverse || x->is_associative != y->is_associative ||
        x->has_is_associative != y->has_is_associative)
        return false;
    if ((x->value == NULL) != (y->value == NULL) || (x->value && !plumb_tensor_equal(x->value, y->value)))
        return false;
    /* ir_conv is zeroed before it is filled (ir.h): bytewise equality is equality */
    if ((x->conv == NULL) != (y->conv == NULL) || (x->conv && memcmp(x->conv, y->conv, sizeof *x->conv) != 0))
        return false;
    if (x->n_extra != y->n_extra)
        return false;
    for (uint32_t i = 0; i < x->n_extra; i++)
        if (!str_eq(x->extra[i].name, y->extra[i].name) || !str_eq(x->extra[i].text, y->extra[i].text))
            return false;
    return true;
}

/* Regions are equal when they are the same computation up to renaming:
 * argument i matches argument i, op j's results match op j's. */
typedef struct vpair {
    const ir_value *a, *b;
} vpair;

static bool val_match(const vpair *p, uint32_t np, const ir_value *a, const ir_value *b)
{
    for (uint32_t i = 0; i < np; i++)
        if (p[i].a == a)
            return p[i].b == b;
    return a == b;   /* both from outside the regions */
}

static bool block_eq(const ir_block *x, const ir_block *y, vpair *p, uint32_t *np, uint32_t cap);

static bool op_shape_eq(const ir_op *a, const ir_op *b)
{
    if (a->code != b->code || a->n_operands != b->n_operands || a->n_results != b->n_results ||
        a->n_regions != b->n_regions)
        return false;
    for (uint32_t i = 0; i < a->n_results; i++)
        if (!ir_type_equal(&a->results[i]->type, &b->results[i]->type))
            return false;
    return attrs_eq(&a->a, &b->a) && rt_canon_attrs_same(a, b);
}

static bool block_eq(const ir_block *x, const ir_block *y, vpair *p, uint32_t *np, uint32_t cap)
{
    if (x->n_args != y->n_args || x->n_ops != y->n_ops)
        return false;
    for (uint32_t i = 0; i < x->n_args; i++) {
        if (!ir_type_equal(&x->args[i]->type, &y->args[i]->type) || *np >= cap)
            return false;
        p[(*np)++] = (vpair){x->args[i], y->args[i]};
    }
    for (const ir_op *a = x->first, *b = y->first; a && b; a = a->next, b = b->next) {
        if (!op_shape_eq(a, b))
            return false;
        for (uint32_t i = 0; i < a->n_operands; i++)
            if (!val_match(p, *np, a->operands[i], b->operands[i]))
                return false;
        for (uint32_t r = 0; r < a->n_regions; r++)
            if (!block_eq(&a->regions[r], &b->regions[r], p, np, cap))
                return false;
        for (uint32_t i = 0; i < a->n_results; i++) {
            if (*np >= cap)
                return false;
            p[(*np)++] = (vpair){a->results[i], b->results[i]};
        }
    }
    return true;
}

static bool ops_eq(const ir_op *a, const ir_op *b)
{
    if (!op_shape_eq(a, b))
        return false;
    for (uint32_t i = 0; i < a->n_operands; i++)
        if (a->operands[i] != b->operands[i])
            return false;
    if (a->n_regions) {
        vpair p[128];
        uint32_t np = 0;
        for (uint32_t r = 0; r < a->n_regions; r++)
            if (!block_eq(&a->regions[r], &b->regions[r], p, &np, 128))
                return false;
    }
    return true;
}

static uint64_t op_hash(const ir_op *op)
{
    uint64_t h = XXH3_64bits(&op->code, sizeof op->code);
    for (uint32_t i = 0; i < op->n_operands; i++)
        h = XXH3_64bits_withSeed(&op->operands[i]->id, sizeof op->operands[i]->id, h);
    for (uint32_t i = 0; i < op->n_results; i++) {
        const ir_type *t = &op->results[i]->type;
        h = XXH3_64bits_withSeed(&t->dtype, sizeof t->dtype, h);
        h = XXH3_64bits_withSeed(t->dims, t->rank * sizeof t->dims[0], h);
    }
    if (op->a.dims.n)
        h = XXH3_64bits_withSeed(op->a.dims.v, op->a.dims.n * sizeof *op->a.dims.v, h);
    if (op->a.value && op->a.value->nbytes)
        h = XXH3_64bits_withSeed(op->a.value->data, op->a.value->nbytes, h);
    return h;
}

static bool cse_eligible(const ir_op *op)
{
    plumb_kind k = plumb_op_get(op->code)->kind;
    return op->n_results > 0 && k != PLUMB_KIND_CHECK && k != PLUMB_KIND_FUNC;
}

/* Returns the earlier op op duplicates, or NULL after recording op. */
static ir_op *cse_find(pass_ctx *c, ir_op *op)
{
    if (!c->cse)
        return NULL;
    uint32_t mask = c->cse_cap - 1;
    for (uint32_t i = (uint32_t)op_hash(op) & mask;; i = (i + 1) & mask) {
        ir_op *o = c->cse[i];
        if (!o) {
            c->cse[i] = op;
            return NULL;
        }
        if (ops_eq(o, op))
            return o;
    }
}

/* ---- dead-code elimination ------------------------------------------------- */

static void mark_uses(const ir_op *op, bool *live, uint32_t n)
{
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i]->id < n)
            live[op->operands[i]->id] = true;
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            mark_uses(o, live, n);
}

/* Whether one of op's regions, at any depth, holds a check op. A while,
 * if or case whose results are unused still runs the checks in its body:
 * removing it would turn a failing check into a silent pass. */
static bool holds_check(const ir_op *op)
{
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *o = op->regions[r].first; o; o = o->next)
            if (plumb_op_get(o->code)->kind == PLUMB_KIND_CHECK || holds_check(o))
                return true;
    return false;
}

static bool dce(pass_ctx *c)
{
    uint32_t n = c->m->next_value_id;
    bool *live = plumb_calloc(n ? n : 1, sizeof *live);
    if (!live)
        return false;
    for (ir_op *op = c->f->body.last, *prev; op; op = prev) {
        prev = op->prev;
        plumb_kind k = plumb_op_get(op->code)->kind;
        bool keep = k == PLUMB_KIND_CHECK || op->code == PLUMB_OP_FUNC_RETURN || op->code == PLUMB_OP_RETURN ||
                    holds_check(op);
        for (uint32_t i = 0; i < op->n_results && !keep; i++)
            keep = op->results[i]->id < n && live[op->results[i]->id];
        if (keep) {
            mark_uses(op, live, n);
        } else {
            ir_block_remove(&c->f->body, op);
            c->changed = true;
        }
    }
    plumb_free(live, (n ? n : 1) * sizeof *live);
    return true;
}

/* ---- the sweep ------------------------------------------------------------------ */

/* Whether op is the dot, sum or ULP-class elementwise op whose value a
 * check op reads: such an op is not folded, so that the check can
 * arbitrate its expected value against the exact result
 * (docs/spec/checks.md "Arbitration"; folded, the checked value would be a
 * constant of unknown origin). Only ops with constant operands get here,
 * so the scan of the ops after op stays rare. */
static bool read_by_check(const ir_op *op)
{
    const plumb_op_info *oi = plumb_op_get(op->code);
    if (op->code != PLUMB_OP_DOT_GENERAL && op->code != PLUMB_OP_DOT && op->code != PLUMB_OP_REDUCE &&
        op->code != PLUMB_OP_REDUCE_WINDOW && !(oi->kind == PLUMB_KIND_ELEMENTWISE && oi->agree == PLUMB_AGREE_ULP))
        return false;
    for (const ir_op *o = op->next; o; o = o->next)
        if (plumb_op_get(o->code)->kind == PLUMB_KIND_CHECK && plumb_check_arb_producer(o) == op)
            return true;
    return false;
}

static bool sweep(pass_ctx *c)
{
    uint32_t cap = 16;
    while (cap < 2 * (c->f->body.n_ops + 1) + 16)
        cap *= 2;
    c->cse = plumb_calloc(cap, sizeof *c->cse);
    if (!c->cse)
        return false;
    c->cse_cap = cap;
    for (ir_op *op = c->f->body.first, *next; op && !c->nomem; op = next) {
        next = op->next;
        remap_op(c, op);
        if (op->n_results == 0)
            continue;
        /* Ops inserted before op are already final: they are built from
         * resolved operands and are not revisited. */
        ir_value *nv = NULL;
        if (op->code == PLUMB_OP_CONSTANT) {
            nv = split_splat(c, op);
        } else if (foldable(op) && !read_by_check(op)) {
            if (!fold(c, op))
                c->nomem = true;
            if (op->results[0]->id < c->n_repl && c->repl[op->results[0]->id])
                continue;
        } else {
            nv = simplify(c, op);
        }
        if (nv) {
            /* A new op built by simplify may itself be a duplicate. */
            if (nv->def && nv->def->next == op && cse_eligible(nv->def)) {
                ir_op *dup = cse_find(c, nv->def);
                if (dup)
                    nv = dup->results[nv->index];
            }
            replace(c, op->results[0], nv);
            continue;
        }
        if (cse_eligible(op)) {
            ir_op *dup = cse_find(c, op);
            if (dup)
                for (uint32_t i = 0; i < op->n_results; i++)
                    replace(c, op->results[i], dup->results[i]);
        }
    }
    plumb_free(c->cse, (size_t)c->cse_cap * sizeof *c->cse);
    c->cse = NULL;
    return !c->nomem;
}

bool rt_run_passes(ir_module *m, ir_func *f, uint32_t opt_level, uint64_t max_bytes, plumb_diag *d)
{
    if (opt_level == 0)
        return true;
    pass_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.f = f;
    c.max_bytes = max_bytes;
    c.d = d;
    bool ok = true;
    /* Each round reaches a fixed point for chains; a second round catches
     * what a fold or CSE exposed to an earlier op. */
    for (int round = 0; round < 4 && ok; round++) {
        c.changed = false;
        ok = sweep(&c) && dce(&c);
        plumb_free(c.quiet, (size_t)c.n_quiet * sizeof *c.quiet);
        c.quiet = NULL;
        c.n_quiet = 0;
        if (!c.changed)
            break;
    }
    plumb_free(c.repl, (size_t)c.n_repl * sizeof *c.repl);
    plumb_free(c.quiet, (size_t)c.n_quiet * sizeof *c.quiet);
    if (!ok)
        plumb_diag_set(d, PLUMB_ERR_NOMEM, f->loc, "out of memory optimizing @%s", f->name);
    return ok;
}
