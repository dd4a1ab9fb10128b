/* The verifier: type and shape inference for every op of ir/ops.def, checking
 * the constraints the StableHLO spec states for each op (constraint ids such
 * as "C3" refer to the op's section of the spec), plus the module-level rules
 * (unique function names, calls, returns, terminators, value scoping) and the
 * size limits of every tensor type. docs/verifier.md lists what is checked.
 *
 * The rule is: everything an executor relies on is proven here, so that the
 * reference and the runtime can index shapes without re-checking them, and a
 * tensor's size is known to fit before anything is allocated. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/lowp.h"
#include "plumb/complex.h"
#include "plumb/dotalg.h"
#include "plumb/fft.h"
#include "plumb/ragged_dot.h"
#include "plumb/ir.h"

typedef struct vctx {
    const ir_module *m;
    uint64_t max_bytes;     /* effective per-tensor limit, bytes */
    plumb_diag *d;
} vctx;

#define TSTR 768   /* room for a rank-16 type with bounds */

/* ---- formatting ------------------------------------------------------------ */

/* Appends to buf (capacity cap, used *n) and truncates silently: these are
 * message fragments. */
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n += (size_t)k;
    if (*n >= cap)
        *n = cap - 1;
}

static void type_str(const ir_type *t, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    if (t->tuple) {   /* tuple<...> (ir/tuple.c) */
        plumb_buf tb;
        plumb_buf_init(&tb);
        ir_type_print(&tb, t);
        put(buf, cap, &n, "%s", tb.data && !tb.failed ? tb.data : "tuple<...>");
        plumb_buf_free(&tb);
        return;
    }
    put(buf, cap, &n, "tensor<");
    uint32_t rank = t->rank <= PLUMB_MAX_RANK ? t->rank : PLUMB_MAX_RANK;
    bool any_bound = false;
    for (uint32_t i = 0; i < rank; i++) {
        if (t->dims[i] == PLUMB_DIM_DYN) {
            put(buf, cap, &n, "?x");
            if (t->bounds[i] != PLUMB_NO_BOUND)
                any_bound = true;
        } else {
            put(buf, cap, &n, "%lldx", (long long)t->dims[i]);
        }
    }
    if ((unsigned)t->dtype < PLUMB_DTYPE_COUNT)
        put(buf, cap, &n, "%s", plumb_dtype_name(t->dtype));
    else
        put(buf, cap, &n, "<dtype %u>", (unsigned)t->dtype);
    if (any_bound) {
        put(buf, cap, &n, ", #stablehlo.bounds<");
        for (uint32_t i = 0; i < rank; i++) {
            if (t->dims[i] == PLUMB_DIM_DYN && t->bounds[i] != PLUMB_NO_BOUND)
                put(buf, cap, &n, "%s%lld", i ? ", " : "", (long long)t->bounds[i]);
            else
                put(buf, cap, &n, "%s?", i ? ", " : "");
        }
        put(buf, cap, &n, ">");
    }
    if (t->rank > PLUMB_MAX_RANK)
        put(buf, cap, &n, "...(rank %u)", t->rank);
    put(buf, cap, &n, ">");
}

/* " (%name)" when the value has an SSA name, else "". */
static const char *vname(const ir_value *v, char *buf, size_t cap)
{
    if (v && v->name)
        snprintf(buf, cap, " (%%%s)", v->name);
    else
        buf[0] = '\0';
    return buf;
}

static const char *dt(plumb_dtype t)
{
    return (unsigned)t < PLUMB_DTYPE_COUNT ? plumb_dtype_name(t) : "?";
}

static bool fail_at(vctx *V, plumb_code code, plumb_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail_at(vctx *V, plumb_code code, plumb_loc loc, const char *fmt, ...)
{
    if (V->d && V->d->code == PLUMB_OK && V->m && V->m->filename)
        V->d->file = V->m->filename;
    va_list ap;
    va_start(ap, fmt);
    plumb_diag_vset(V->d, code, loc, fmt, ap);
    va_end(ap);
    return false;
}

/* An error about op: the message starts with the op's full name. */
static bool op_fail(vctx *V, const ir_op *op, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool op_fail(vctx *V, const ir_op *op, plumb_code code, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* a shape assertion is written as a custom call: name it so */
    const char *name = op->code == PLUMB_OP_SHAPE_ASSERTION ? "stablehlo.custom_call @shape_assertion"
                                                            : plumb_op_name(op->code);
    /* the front end's line (`loc(...)`), so the user finds their own code */
    char origin[700];
    ir_debug_loc_describe(origin, sizeof origin, &op->dloc);
    return fail_at(V, code, op->loc, "%s: %s%s", name, msg, origin);
}

#define BAD(...) op_fail(V, op, PLUMB_ERR_INVALID, __VA_ARGS__)

/* ---- types ------------------------------------------------------------------ */

/* Structure of a type (element type, rank, dims, bounds) without its size;
 * what: "operand 1 (%x)", "result 0", "argument 2 of @f"... */
static bool check_type_form(vctx *V, plumb_loc loc, const char *prefix, const char *what,
                            const ir_type *t);

/* A tuple type: within the nesting and leaf limits (the parser enforces
 * them before allocating; a module built in memory is checked here), each
 * element checked by check (form, or form plus size). */
static bool check_tuple_type(vctx *V, plumb_loc loc, const char *prefix, const char *what, const ir_type *t,
                             bool (*check)(vctx *, plumb_loc, const char *, const char *, const ir_type *))
{
    uint32_t depth = ir_type_tuple_depth(t);
    if (depth > IR_TUPLE_MAX_DEPTH)
        return fail_at(V, PLUMB_ERR_LIMIT, loc, "%s%s: tuple types nest %u deep, more than the limit %d",
                       prefix, what, depth, IR_TUPLE_MAX_DEPTH);
    uint64_t leaves = ir_type_leaf_count(t);
    if (leaves > IR_TUPLE_MAX_LEAVES)
        return fail_at(V, PLUMB_ERR_LIMIT, loc, "%s%s: a tuple type of %llu tensors, more than the limit %d",
                       prefix, what, (unsigned long long)leaves, IR_TUPLE_MAX_LEAVES);
    for (uint32_t i = 0; i < t->tuple->n; i++) {
        char ew[400];
        snprintf(ew, sizeof ew, "%s element %u", what, i);
        if (!check(V, loc, prefix, ew, &t->tuple->elems[i]))
            return false;
    }
    return true;
}

static bool check_type_form(vctx *V, plumb_loc loc, const char *prefix, const char *what,
                            const ir_type *t)
{
    if (t->tuple)
        return check_tuple_type(V, loc, prefix, what, t, check_type_form);
    if ((unsigned)t->dtype >= PLUMB_DTYPE_COUNT)
        return fail_at(V, PLUMB_ERR_INVALID, loc, "%s%s has an unknown element type %u",
                       prefix, what, (unsigned)t->dtype);
    if (t->rank > PLUMB_MAX_RANK)
        return fail_at(V, PLUMB_ERR_LIMIT, loc, "%s%s: rank %u exceeds the maximum rank %d",
                       prefix, what, t->rank, PLUMB_MAX_RANK);
    for (uint32_t i = 0; i < t->rank; i++) {
        char ts[TSTR];
        if (t->dims[i] < 0 && t->dims[i] != PLUMB_DIM_DYN) {
            type_str(t, ts, sizeof ts);
            return fail_at(V, PLUMB_ERR_INVALID, loc, "%s%s: type %s: dimension %u has negative size %lld",
                           prefix, what, ts, i, (long long)t->dims[i]);
        }
        if (t->dims[i] != PLUMB_DIM_DYN && t->bounds[i] != PLUMB_NO_BOUND) {
            type_str(t, ts, sizeof ts);
            return fail_at(V, PLUMB_ERR_INVALID, loc,
                           "%s%s: type %s: dimension %u is static but has a bound %lld (bounds apply to '?' dimensions only)",
                           prefix, what, ts, i, (long long)t->bounds[i]);
        }
        if (t->dims[i] == PLUMB_DIM_DYN && t->bounds[i] < 0 && t->bounds[i] != PLUMB_NO_BOUND) {
            type_str(t, ts, sizeof ts);
            return fail_at(V, PLUMB_ERR_INVALID, loc, "%s%s: type %s: dimension %u has negative bound %lld",
                           prefix, what, ts, i, (long long)t->bounds[i]);
        }
    }
    return true;
}

/* Form plus size: the element count and byte size, with the bound standing in
 * for a '?' dimension, must fit in 64 bits and in max_bytes. An unbounded '?'
 * counts as 1, so the static part of the shape is still checked. */
static bool check_type(vctx *V, plumb_loc loc, const char *prefix, const char *what,
                       const ir_type *t)
{
    if (t->tuple)
        return check_tuple_type(V, loc, prefix, what, t, check_type);
    if (!check_type_form(V, loc, prefix, what, t))
        return false;
    int64_t dims[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < t->rank; i++)
        dims[i] = t->dims[i] != PLUMB_DIM_DYN ? t->dims[i]
                : t->bounds[i] != PLUMB_NO_BOUND ? t->bounds[i] : 1;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    uint64_t numel, nbytes;
    if (!plumb_shape_size(t->dtype, t->rank, dims, V->max_bytes, &numel, &nbytes, &sd)) {
        char ts[TSTR];
        type_str(t, ts, sizeof ts);
        return fail_at(V, sd.code != PLUMB_OK ? sd.code : PLUMB_ERR_LIMIT, loc, "%s%s: type %s: %s",
                       prefix, what, ts, sd.msg);
    }
    return true;
}

/* The rule for '?' (docs/spec/dynamic.md): two dimensions are compatible
 * when they are equal static sizes or at least one is '?'; a static size
 * against a bounded '?' must also be within the bound (a bounded '?' can
 * never hold a larger size, so the program would fail for every input).
 * Where a '?' meets a static size the verifier accepts it and the sizes are
 * compared at run time (ir_shape_infer). */
static bool dim_compat(int64_t a, int64_t b)
{
    return a == b || a == PLUMB_DIM_DYN || b == PLUMB_DIM_DYN;
}

static bool dim_compat_b(int64_t a, int64_t ab, int64_t b, int64_t bb)
{
    if (a != PLUMB_DIM_DYN && b != PLUMB_DIM_DYN)
        return a == b;
    if (a != PLUMB_DIM_DYN)
        return bb == PLUMB_NO_BOUND || a <= bb;
    if (b != PLUMB_DIM_DYN)
        return ab == PLUMB_NO_BOUND || b <= ab;
    return true;
}

/* A dimension for messages: "4", "?" or "? (bound 8)". */
typedef struct dstr {
    char s[48];
} dstr;

static dstr dim_str(int64_t d, int64_t bound)
{
    dstr r;
    if (d != PLUMB_DIM_DYN)
        snprintf(r.s, sizeof r.s, "%lld", (long long)d);
    else if (bound != PLUMB_NO_BOUND)
        snprintf(r.s, sizeof r.s, "? (bound %lld)", (long long)bound);
    else
        snprintf(r.s, sizeof r.s, "?");
    return r;
}

/* StableHLO's compatible shapes: same rank, and each pair of dims
 * compatible as above. */
static bool shape_compat(const ir_type *a, const ir_type *b)
{
    if (a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (!dim_compat_b(a->dims[i], a->bounds[i], b->dims[i], b->bounds[i]))
            return false;
    return true;
}

/* The most specific shape compatible with both a and b (same rank, already
 * checked compatible): per dimension the static size when either has one,
 * else '?' with the smaller of the bounds. This is the inferred shape of an
 * op whose operands must share one shape (elementwise ops, select, clamp,
 * reduce's inputs, concatenate's other dimensions, batching dimensions). */
static void meet_dim(int64_t *d, int64_t *bd, int64_t e, int64_t be)
{
    if (*d != PLUMB_DIM_DYN)
        return;
    if (e != PLUMB_DIM_DYN) {
        *d = e;
        *bd = PLUMB_NO_BOUND;
    } else if (be != PLUMB_NO_BOUND && (*bd == PLUMB_NO_BOUND || be < *bd)) {
        *bd = be;
    }
}

static void meet(ir_type *into, const ir_type *b)
{
    for (uint32_t i = 0; i < into->rank && i < b->rank; i++)
        meet_dim(&into->dims[i], &into->bounds[i], b->dims[i], b->bounds[i]);
}

static bool type_compat(const ir_type *a, const ir_type *b)
{
    if (a->tuple || b->tuple) {   /* element by element (docs/spec/tuple.md) */
        if (!a->tuple || !b->tuple || a->tuple->n != b->tuple->n)
            return false;
        for (uint32_t i = 0; i < a->tuple->n; i++)
            if (!type_compat(&a->tuple->elems[i], &b->tuple->elems[i]))
                return false;
        return true;
    }
    return a->dtype == b->dtype && shape_compat(a, b);
}

static ir_type blank_type(plumb_dtype t, uint32_t rank)
{
    ir_type r;
    memset(&r, 0, sizeof r);
    r.dtype = t;
    r.rank = rank;
    for (uint32_t i = 0; i < PLUMB_MAX_RANK; i++)
        r.bounds[i] = PLUMB_NO_BOUND;
    return r;
}

/* Compares result i's declared type with the inferred one. */
static bool expect_result(vctx *V, const ir_op *op, uint32_t i, const ir_type *want,
                          const char *constraint)
{
    const ir_type *got = &op->results[i]->type;
    if (type_compat(got, want))
        return true;
    char g[TSTR], w[TSTR], nb[160];
    type_str(got, g, sizeof g);
    type_str(want, w, sizeof w);
    return BAD("result %u%s: type %s does not match the inferred type %s (StableHLO %s)",
               i, vname(op->results[i], nb, sizeof nb), g, w, constraint);
}

static const char *odesc(const ir_op *op, uint32_t i, char *buf, size_t cap)
{
    char nb[160];
    snprintf(buf, cap, "operand %u%s", i, vname(op->operands[i], nb, sizeof nb));
    return buf;
}

/* Operand i's element type equals operand j's. */
static bool same_elem(vctx *V, const ir_op *op, uint32_t i, uint32_t j, const char *constraint)
{
    plumb_dtype a = op->operands[i]->type.dtype, b = op->operands[j]->type.dtype;
    if (a == b)
        return true;
    char od[200];
    return BAD("%s: element type %s does not match operand %u's %s (StableHLO %s)",
               odesc(op, i, od, sizeof od), dt(a), j, dt(b), constraint);
}

/* Operand i's shape is compatible with operand j's. */
static bool same_shape(vctx *V, const ir_op *op, uint32_t i, uint32_t j, const char *constraint)
{
    const ir_type *a = &op->operands[i]->type, *b = &op->operands[j]->type;
    if (shape_compat(a, b))
        return true;
    char od[200], ta[TSTR], tb[TSTR];
    type_str(a, ta, sizeof ta);
    type_str(b, tb, sizeof tb);
    return BAD("%s: shape of %s does not match operand %u's %s (StableHLO %s; no implicit broadcasting)",
               odesc(op, i, od, sizeof od), ta, j, tb, constraint);
}

static bool is_scalar_int(const ir_type *t)
{
    return t->rank == 0 && plumb_dtype_is_int(t->dtype);
}

/* Numbers of a dimension list lie in [0, rank). */
static bool dims_in_range(vctx *V, const ir_op *op, const char *name, const ir_ints *l,
                          int64_t rank, const char *rank_of, const char *constraint)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] < 0 || l->v[i] >= rank)
            return BAD("%s[%u] = %lld is out of range for %s rank %lld (StableHLO %s)",
                       name, i, (long long)l->v[i], rank_of, (long long)rank, constraint);
    return true;
}

static bool dims_unique(vctx *V, const ir_op *op, const char *name, const ir_ints *l,
                        const char *constraint)
{
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (l->v[i] == l->v[j])
                return BAD("%s[%u] = %lld repeats %s[%u] (StableHLO %s)", name, i,
                           (long long)l->v[i], name, j, constraint);
    return true;
}

static bool dims_sorted(vctx *V, const ir_op *op, const char *name, const ir_ints *l,
                        const char *constraint)
{
    for (uint32_t i = 1; i < l->n; i++)
        if (l->v[i] < l->v[i - 1])
            return BAD("%s must be sorted in ascending order, but %s[%u] = %lld follows %lld (StableHLO %s)",
                       name, name, i, (long long)l->v[i], (long long)l->v[i - 1], constraint);
    return true;
}

/* Two lists together hold no number twice (e.g. collapsed_slice_dims and
 * operand_batching_dims). */
static bool dims_disjoint(vctx *V, const ir_op *op, const char *na, const ir_ints *a,
                          const char *nb, const ir_ints *b, const char *constraint)
{
    for (uint32_t i = 0; i < a->n; i++)
        for (uint32_t j = 0; j < b->n; j++)
            if (a->v[i] == b->v[j])
                return BAD("%s[%u] and %s[%u] are both %lld (StableHLO %s)", na, i, nb, j,
                           (long long)a->v[i], constraint);
    return true;
}

static bool in_list(const ir_ints *l, int64_t x)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == x)
            return true;
    return false;
}

/* is_promotable(from, to) of the spec: same kind and at least as wide. */
static bool promotable(plumb_dtype from, plumb_dtype to)
{
    const plumb_dtype_info *a = plumb_dtype_get(from), *b = plumb_dtype_get(to);
    if (from == to)
        return true;
    if (a->cls != b->cls || a->cls == PLUMB_DC_BOOL)
        return false;
    if (a->cls == PLUMB_DC_FLOAT)
        return b->mant_bits >= a->mant_bits && b->exp_bits >= a->exp_bits;
    return b->bits >= a->bits;
}

/* ---- regions ----------------------------------------------------------------- */

/* The region's block arguments are scalars of the given element types and its
 * stablehlo.return returns scalars of ret_types (n_ret of them). */
static bool check_region(vctx *V, const ir_op *op, const char *what, const ir_block *b,
                         const plumb_dtype *arg_types, uint32_t n_args,
                         const plumb_dtype *ret_types, uint32_t n_ret, const char *constraint)
{
    if (b->n_args != n_args)
        return BAD("%s takes %u arguments, expected %u scalars (StableHLO %s)", what, b->n_args,
                   n_args, constraint);
    for (uint32_t i = 0; i < n_args; i++) {
        const ir_type *t = &b->args[i]->type;
        if (t->rank != 0 || t->dtype != arg_types[i]) {
            char ts[TSTR], nb[160];
            type_str(t, ts, sizeof ts);
            return BAD("%s argument %u%s has type %s, expected tensor<%s> (StableHLO %s)", what, i,
                       vname(b->args[i], nb, sizeof nb), ts, dt(arg_types[i]), constraint);
        }
    }
    const ir_op *ret = b->last;
    if (!ret || ret->code != PLUMB_OP_RETURN)
        return BAD("%s must end in stablehlo.return", what);
    if (ret->n_operands != n_ret)
        return BAD("%s returns %u values, expected %u (StableHLO %s)", what, ret->n_operands, n_ret,
                   constraint);
    for (uint32_t i = 0; i < n_ret; i++) {
        const ir_type *t = &ret->operands[i]->type;
        if (t->rank != 0 || t->dtype != ret_types[i]) {
            char ts[TSTR];
            type_str(t, ts, sizeof ts);
            return BAD("%s returns %s as value %u, expected tensor<%s> (StableHLO %s)", what, ts, i,
                       dt(ret_types[i]), constraint);
        }
    }
    return true;
}

/* ---- per-op rules -------------------------------------------------------------- */

static bool v_unary(vctx *V, const ir_op *op)
{
    ir_type want = op->operands[0]->type;
    if (op->code == PLUMB_OP_IS_FINITE || op->code == PLUMB_OP_IS_INF || op->code == PLUMB_OP_IS_POS_INF ||
        op->code == PLUMB_OP_IS_NEG_INF)
        want.dtype = PLUMB_I1;
    if (op->code == PLUMB_OP_REDUCE_PRECISION) {
        if (op->a.exponent_bits < 1)
            return BAD("exponent_bits = %d must be at least 1 (StableHLO C2)", (int)op->a.exponent_bits);
        if (op->a.mantissa_bits < 0)
            return BAD("mantissa_bits = %d must not be negative (StableHLO C3)", (int)op->a.mantissa_bits);
    }
    return expect_result(V, op, 0, &want, "C1");
}

static bool v_binary(vctx *V, const ir_op *op)
{
    if (!same_elem(V, op, 1, 0, "C1") || !same_shape(V, op, 1, 0, "C1"))
        return false;
    ir_type want = op->operands[0]->type;
    meet(&want, &op->operands[1]->type);
    if (op->code != PLUMB_OP_COMPARE)
        return expect_result(V, op, 0, &want, "C1");
    plumb_dtype e = want.dtype;
    if ((unsigned)op->a.cmp_dir > IR_CMP_GE)
        return BAD("unknown comparison_direction %u", (unsigned)op->a.cmp_dir);
    const char *need = NULL;
    switch (op->a.cmp_type) {
    case IR_CMP_TYPE_NONE:
        break;
    case IR_CMP_FLOAT:
    case IR_CMP_TOTALORDER:
        /* C3: complex operands take NOTYPE or FLOAT (compare.mlir's c128 cases) */
        if (!plumb_dtype_is_float(e) && !(op->a.cmp_type == IR_CMP_FLOAT && plumb_dtype_is_complex(e)))
            need = op->a.cmp_type == IR_CMP_FLOAT ? "FLOAT" : "TOTALORDER";
        break;
    case IR_CMP_SIGNED:
        if (!plumb_dtype_is_signed(e))
            need = "SIGNED";
        break;
    case IR_CMP_UNSIGNED:
        if (!plumb_dtype_is_unsigned(e) && !plumb_dtype_is_bool(e))
            need = "UNSIGNED";
        break;
    case IR_CMP_WEAKORDER:
        if (!plumb_dtype_is_float(e))
            need = "WEAKORDER";
        else if (!(PLUMB_TY_BIT(e) & PLUMB_TY_FLOAT))   /* the FP8/FP6/FP4 kernels compare FLOAT and TOTALORDER */
            return op_fail(V, op, PLUMB_ERR_UNSUPPORTED,
                           "unsupported: comparison_type WEAKORDER on element type %s (plumb compares f16, bf16, f32 and f64 with it)",
                           dt(e));
        break;
    default:
        return BAD("unknown comparison_type %u", (unsigned)op->a.cmp_type);
    }
    if (need)
        return BAD("comparison_type %s does not fit element type %s (StableHLO C3: FLOAT, TOTALORDER or WEAKORDER for floats, SIGNED for signed integers, UNSIGNED for unsigned integers and i1)",
                   need, dt(e));
    want.dtype = PLUMB_I1;
    return expect_result(V, op, 0, &want, "C2");
}

static bool v_select(vctx *V, const ir_op *op)
{
    const ir_type *pred = &op->operands[0]->type;
    char od[200];
    if (pred->dtype != PLUMB_I1)
        return BAD("%s: pred must have element type i1, not %s", odesc(op, 0, od, sizeof od),
                   dt(pred->dtype));
    if (pred->rank != 0 && !same_shape(V, op, 0, 1, "C1: pred is a scalar or has on_true's shape"))
        return false;
    if (!same_elem(V, op, 2, 1, "C2") || !same_shape(V, op, 2, 1, "C2"))
        return false;
    ir_type want = op->operands[1]->type;
    meet(&want, &op->operands[2]->type);
    if (pred->rank != 0)
        meet(&want, pred);
    return expect_result(V, op, 0, &want, "C2");
}

static bool v_clamp(vctx *V, const ir_op *op)
{
    if (op->operands[0]->type.rank != 0 &&
        !same_shape(V, op, 0, 1, "C1: min is a scalar or has operand's shape"))
        return false;
    if (op->operands[2]->type.rank != 0 &&
        !same_shape(V, op, 2, 1, "C2: max is a scalar or has operand's shape"))
        return false;
    if (!same_elem(V, op, 0, 1, "C3") || !same_elem(V, op, 2, 1, "C3"))
        return false;
    ir_type want = op->operands[1]->type;
    if (op->operands[0]->type.rank != 0)
        meet(&want, &op->operands[0]->type);
    if (op->operands[2]->type.rank != 0)
        meet(&want, &op->operands[2]->type);
    return expect_result(V, op, 0, &want, "C4");
}

static bool v_convert(vctx *V, const ir_op *op)
{
    ir_type want = op->operands[0]->type;
    want.dtype = op->results[0]->type.dtype;
    return expect_result(V, op, 0, &want, "C1");
}

static bool v_bitcast(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    plumb_dtype eo = op->results[0]->type.dtype;
    uint32_t bi = plumb_dtype_get(in->dtype)->bits, bo = plumb_dtype_get(eo)->bits;
    ir_type want = *in;
    want.dtype = eo;
    if (bo < bi) {
        /* narrower result: one more, last dimension of bi / bo elements */
        if (in->rank + 1 > PLUMB_MAX_RANK)
            return BAD("result rank %u exceeds the maximum rank %d", in->rank + 1, PLUMB_MAX_RANK);
        if (bi % bo)
            return BAD("%s is not a whole number of %s (StableHLO C1)", dt(in->dtype), dt(eo));
        want.rank = in->rank + 1;
        want.dims[in->rank] = bi / bo;
        want.bounds[in->rank] = PLUMB_NO_BOUND;
    } else if (bo > bi) {
        /* wider result: the operand's last dimension of bo / bi elements goes */
        if (in->rank == 0)
            return BAD("bitcast from %s to the wider %s needs an operand of rank >= 1 whose last dimension is %u (StableHLO C1)",
                       dt(in->dtype), dt(eo), bo / bi);
        int64_t last = in->dims[in->rank - 1];
        if (bo % bi || (last != PLUMB_DIM_DYN && (uint64_t)last * bi != bo))
            return BAD("bitcast from %s to %s needs the operand's last dimension to be %u, not %lld (StableHLO C1)",
                       dt(in->dtype), dt(eo), bo / bi, (long long)last);
        want.rank = in->rank - 1;
    }
    return expect_result(V, op, 0, &want, "C1");
}

static bool v_constant(vctx *V, const ir_op *op)
{
    const plumb_tensor *v = op->a.value;
    const ir_type *t = &op->results[0]->type;
    if (!v)
        return BAD("has no value");
    char ts[TSTR];
    type_str(t, ts, sizeof ts);
    if (!ir_type_is_static(t))
        return BAD("result type %s must be static", ts);
    bool ok = v->dtype == t->dtype && v->rank == t->rank;
    for (uint32_t i = 0; ok && i < t->rank; i++)
        ok = v->dims[i] == t->dims[i];
    if (!ok) {
        ir_type vt = blank_type(v->dtype, v->rank <= PLUMB_MAX_RANK ? v->rank : PLUMB_MAX_RANK);
        for (uint32_t i = 0; i < vt.rank; i++)
            vt.dims[i] = v->dims[i];
        char vs[TSTR];
        type_str(&vt, vs, sizeof vs);
        return BAD("value of type %s does not match the declared type %s (StableHLO C1)", vs, ts);
    }
    return true;
}

static bool v_iota(vctx *V, const ir_op *op)
{
    const ir_type *t = &op->results[0]->type;
    if (op->a.dimension < 0 || op->a.dimension >= (int64_t)t->rank)
        return BAD("iota_dimension = %lld is out of range for result rank %u (StableHLO C1)",
                   (long long)op->a.dimension, t->rank);
    /* A '?' result has nothing to take its size from: ir_shape_infer
     * refuses it when the op runs (dynamic_iota is the op for that). */
    return true;
}

static bool v_broadcast(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *out = &op->results[0]->type;
    const ir_ints *bd = &op->a.dims;
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO C1)",
                   dt(out->dtype), dt(in->dtype));
    if (bd->n != in->rank)
        return BAD("broadcast_dimensions has %u entries but the operand has rank %u (StableHLO C2)",
                   bd->n, in->rank);
    if (!dims_in_range(V, op, "broadcast_dimensions", bd, out->rank, "result", "C3") ||
        !dims_unique(V, op, "broadcast_dimensions", bd, "C4"))
        return false;
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t a = in->dims[d], b = out->dims[bd->v[d]];
        if (a != 1 && !dim_compat_b(a, in->bounds[d], b, out->bounds[bd->v[d]]))
            return BAD("operand dimension %u has size %s, which is neither 1 nor result dimension %lld's size %s (StableHLO C5)",
                       d, dim_str(a, in->bounds[d]).s, (long long)bd->v[d], dim_str(b, out->bounds[bd->v[d]]).s);
    }
    return true;
}

/* The static part of a type: the product of its static dimensions and of
 * the bounds of its '?' ones (UINT64_MAX when a '?' is unbounded), and
 * whether it has a '?'. Sizes are within the byte limit, so the products
 * of a checked type do not overflow; the bounds' product is saturated. */
static void count_parts(const ir_type *t, uint64_t *fixed, uint64_t *most, bool *dyn)
{
    *fixed = 1;
    *most = 1;
    *dyn = false;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (t->dims[i] != PLUMB_DIM_DYN) {
            plumb_mul_overflow_u64(*fixed, (uint64_t)t->dims[i], fixed);
            if (plumb_mul_overflow_u64(*most, (uint64_t)t->dims[i], most))
                *most = UINT64_MAX;
        } else {
            *dyn = true;
            if (t->bounds[i] == PLUMB_NO_BOUND || plumb_mul_overflow_u64(*most, (uint64_t)t->bounds[i], most))
                *most = UINT64_MAX;
        }
    }
}

/* reshape (C2) with a '?' on one side and a static element count N on the
 * other: some size of the '?'s must give N elements. So the other side's
 * static dimensions must divide N (a product of 0 only gives N = 0), and
 * its bounds must reach N. Both sides '?': checked at run time only. */
static bool reshape_counts_possible(vctx *V, const ir_op *op, const ir_type *in, const ir_type *out)
{
    uint64_t fi, mi, fo, mo;
    bool di, dout;
    count_parts(in, &fi, &mi, &di);
    count_parts(out, &fo, &mo, &dout);
    if (di == dout)
        return true;
    uint64_t n = di ? fo : fi, fixed = di ? fi : fo, most = di ? mi : mo;
    bool ok = fixed == 0 ? n == 0 : n % fixed == 0 && n <= most;
    if (ok)
        return true;
    char ti[TSTR], to[TSTR];
    type_str(in, ti, sizeof ti);
    type_str(out, to, sizeof to);
    return BAD("%s %s has %llu elements, which no size of the '?' dimensions of %s %s gives (StableHLO C2)",
               di ? "result" : "operand", di ? to : ti, (unsigned long long)n, di ? "operand" : "result",
               di ? ti : to);
}

static bool v_reshape(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *out = &op->results[0]->type;
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO C1)",
                   dt(out->dtype), dt(in->dtype));
    if (!ir_type_is_static(in) || !ir_type_is_static(out))
        return reshape_counts_possible(V, op, in, out);
    uint64_t a = 1, b = 1;
    for (uint32_t i = 0; i < in->rank; i++)
        plumb_mul_overflow_u64(a, (uint64_t)in->dims[i], &a);
    for (uint32_t i = 0; i < out->rank; i++)
        plumb_mul_overflow_u64(b, (uint64_t)out->dims[i], &b);
    if (a != b) {
        char ti[TSTR], to[TSTR];
        type_str(in, ti, sizeof ti);
        type_str(out, to, sizeof to);
        return BAD("operand %s has %llu elements but result %s has %llu (StableHLO C2)", ti,
                   (unsigned long long)a, to, (unsigned long long)b);
    }
    return true;
}

static bool v_transpose(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    const ir_ints *p = &op->a.dims;
    if (p->n != in->rank)
        return BAD("permutation has %u entries but the operand has rank %u (StableHLO C2)", p->n,
                   in->rank);
    if (!dims_in_range(V, op, "permutation", p, in->rank, "operand", "C2") ||
        !dims_unique(V, op, "permutation", p, "C2"))
        return false;
    ir_type want = blank_type(in->dtype, in->rank);
    for (uint32_t j = 0; j < in->rank; j++) {
        want.dims[j] = in->dims[p->v[j]];
        want.bounds[j] = in->bounds[p->v[j]];
    }
    return expect_result(V, op, 0, &want, "C3");
}

static bool v_slice(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    const ir_attrs *a = &op->a;
    if (a->start.n != in->rank || a->limit.n != in->rank || a->strides.n != in->rank)
        return BAD("start_indices, limit_indices and strides have %u, %u and %u entries, expected the operand's rank %u (StableHLO C2)",
                   a->start.n, a->limit.n, a->strides.n, in->rank);
    ir_type want = blank_type(in->dtype, in->rank);
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t s = a->start.v[d], l = a->limit.v[d], st = a->strides.v[d], n = in->dims[d];
        if (s < 0 || s > l || (n != PLUMB_DIM_DYN && l > n))
            return BAD("dimension %u: need 0 <= start_indices (%lld) <= limit_indices (%lld) <= operand size (%lld) (StableHLO C3)",
                       d, (long long)s, (long long)l, (long long)n);
        if (n == PLUMB_DIM_DYN && in->bounds[d] != PLUMB_NO_BOUND && l > in->bounds[d])
            return BAD("dimension %u: limit_indices (%lld) is above the operand's bound %lld, so no operand size admits it (StableHLO C3)",
                       d, (long long)l, (long long)in->bounds[d]);
        if (st <= 0)
            return BAD("strides[%u] = %lld must be positive (StableHLO C4)", d, (long long)st);
        want.dims[d] = (l - s) / st + ((l - s) % st != 0);
    }
    return expect_result(V, op, 0, &want, "C5");
}

/* Start indices operands [first, n_operands): rank-0 integers of one type. */
static bool check_start_indices(vctx *V, const ir_op *op, uint32_t first, const char *c_scalar,
                                const char *c_same)
{
    for (uint32_t i = first; i < op->n_operands; i++) {
        char od[200], ts[TSTR];
        if (!is_scalar_int(&op->operands[i]->type)) {
            type_str(&op->operands[i]->type, ts, sizeof ts);
            return BAD("%s: start index has type %s, expected a 0-dimensional integer tensor (StableHLO %s)",
                       odesc(op, i, od, sizeof od), ts, c_scalar);
        }
        if (i > first && !same_elem(V, op, i, first, c_same))
            return false;
    }
    return true;
}

static bool v_dynamic_slice(vctx *V, const ir_op *op)
{
    if (op->n_operands < 1)
        return BAD("takes an operand and one start index per dimension, got no operands");
    const ir_type *in = &op->operands[0]->type;
    const ir_ints *sz = &op->a.sizes;
    if (op->n_operands - 1 != in->rank)
        return BAD("takes %u start indices for an operand of rank %u, got %u (StableHLO C2)",
                   in->rank, in->rank, op->n_operands - 1);
    if (sz->n != in->rank)
        return BAD("slice_sizes has %u entries, expected the operand's rank %u (StableHLO C2)",
                   sz->n, in->rank);
    if (!check_start_indices(V, op, 1, "C3", "C3"))
        return false;
    ir_type want = blank_type(in->dtype, in->rank);
    for (uint32_t d = 0; d < in->rank; d++) {
        if (sz->v[d] < 0 || (in->dims[d] != PLUMB_DIM_DYN && sz->v[d] > in->dims[d]))
            return BAD("slice_sizes[%u] = %lld is outside [0, %lld], the operand's dimension size (StableHLO C4)",
                       d, (long long)sz->v[d], (long long)in->dims[d]);
        if (in->dims[d] == PLUMB_DIM_DYN && in->bounds[d] != PLUMB_NO_BOUND && sz->v[d] > in->bounds[d])
            return BAD("slice_sizes[%u] = %lld is above the operand's bound %lld, so no operand size admits it (StableHLO C4)",
                       d, (long long)sz->v[d], (long long)in->bounds[d]);
        want.dims[d] = sz->v[d];
    }
    return expect_result(V, op, 0, &want, "C5");
}

static bool v_dynamic_update_slice(vctx *V, const ir_op *op)
{
    if (op->n_operands < 2)
        return BAD("takes an operand, an update and one start index per dimension, got %u operands",
                   op->n_operands);
    const ir_type *in = &op->operands[0]->type, *up = &op->operands[1]->type;
    if (!same_elem(V, op, 1, 0, "C2"))
        return false;
    if (up->rank != in->rank)
        return BAD("update has rank %u but the operand has rank %u (StableHLO C3)", up->rank, in->rank);
    if (op->n_operands - 2 != in->rank)
        return BAD("takes %u start indices for an operand of rank %u, got %u (StableHLO C4)",
                   in->rank, in->rank, op->n_operands - 2);
    if (!check_start_indices(V, op, 2, "C4", "C5"))
        return false;
    for (uint32_t d = 0; d < in->rank; d++) {
        /* the operand's largest possible size: its static size or bound */
        int64_t cap = in->dims[d] != PLUMB_DIM_DYN ? in->dims[d] : in->bounds[d];
        if (up->dims[d] != PLUMB_DIM_DYN && cap != PLUMB_NO_BOUND && up->dims[d] > cap)
            return BAD("update dimension %u has size %lld, larger than the operand's %s (StableHLO C6)",
                       d, (long long)up->dims[d], dim_str(in->dims[d], in->bounds[d]).s);
    }
    return expect_result(V, op, 0, in, "C1");
}

static bool v_concatenate(vctx *V, const ir_op *op)
{
    if (op->n_operands < 1)
        return BAD("needs at least one input (StableHLO C3)");
    const ir_type *t0 = &op->operands[0]->type;
    int64_t dim = op->a.dimension;
    if (dim < 0 || dim >= (int64_t)t0->rank)
        return BAD("dimension = %lld is out of range for input rank %u (StableHLO C4)",
                   (long long)dim, t0->rank);
    ir_type want = *t0;
    for (uint32_t i = 1; i < op->n_operands; i++) {
        const ir_type *t = &op->operands[i]->type;
        char od[200];
        if (!same_elem(V, op, i, 0, "C1"))
            return false;
        if (t->rank != t0->rank)
            return BAD("%s has rank %u but operand 0 has rank %u (StableHLO C2)",
                       odesc(op, i, od, sizeof od), t->rank, t0->rank);
        for (uint32_t d = 0; d < t0->rank; d++)
            if (d != (uint32_t)dim && !dim_compat_b(t->dims[d], t->bounds[d], t0->dims[d], t0->bounds[d]))
                return BAD("%s: dimension %u has size %s but operand 0's has %s (StableHLO C2)",
                           odesc(op, i, od, sizeof od), d, dim_str(t->dims[d], t->bounds[d]).s,
                           dim_str(t0->dims[d], t0->bounds[d]).s);
        /* the concatenated dimension: the sum, '?' if any part is '?',
         * bounded by the sum of the parts' sizes and bounds when each has
         * one (sizes and bounds are within the byte limit: no overflow) */
        int64_t cur = want.dims[dim] != PLUMB_DIM_DYN ? want.dims[dim] : want.bounds[dim];
        int64_t add = t->dims[dim] != PLUMB_DIM_DYN ? t->dims[dim] : t->bounds[dim];
        bool dyn = want.dims[dim] == PLUMB_DIM_DYN || t->dims[dim] == PLUMB_DIM_DYN;
        int64_t tot = cur == PLUMB_NO_BOUND || add == PLUMB_NO_BOUND ? PLUMB_NO_BOUND : cur + add;
        want.dims[dim] = dyn ? PLUMB_DIM_DYN : tot;
        want.bounds[dim] = dyn ? tot : PLUMB_NO_BOUND;
        for (uint32_t d = 0; d < t0->rank; d++)
            if (d != (uint32_t)dim)
                meet_dim(&want.dims[d], &want.bounds[d], t->dims[d], t->bounds[d]);
    }
    return expect_result(V, op, 0, &want, "C6");
}

static bool v_pad(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *pv = &op->operands[1]->type;
    const ir_attrs *a = &op->a;
    char od[200];
    if (pv->rank != 0)
        return BAD("%s: padding_value must be 0-dimensional, has rank %u", odesc(op, 1, od, sizeof od),
                   pv->rank);
    if (!same_elem(V, op, 1, 0, "C1"))
        return false;
    if (a->low.n != in->rank || a->high.n != in->rank || a->interior.n != in->rank)
        return BAD("edge_padding_low, edge_padding_high and interior_padding have %u, %u and %u entries, expected the operand's rank %u (StableHLO C2)",
                   a->low.n, a->high.n, a->interior.n, in->rank);
    ir_type want = blank_type(in->dtype, in->rank);
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t lo = a->low.v[d], hi = a->high.v[d], it = a->interior.v[d], n = in->dims[d];
        if (it < 0)
            return BAD("interior_padding[%u] = %lld must not be negative (StableHLO C3)", d, (long long)it);
        if (n == PLUMB_DIM_DYN) {
            /* the padded size grows with the operand's, so a bound B gives
             * the bound lo + B + (B - 1) * interior + hi */
            int64_t b = in->bounds[d], r;
            want.dims[d] = PLUMB_DIM_DYN;
            if (b != PLUMB_NO_BOUND && !__builtin_mul_overflow(b > 0 ? b - 1 : 0, it, &r) &&
                !__builtin_add_overflow(r, b, &r) && !__builtin_add_overflow(r, lo, &r) &&
                !__builtin_add_overflow(r, hi, &r) && r >= 0)
                want.bounds[d] = r;
            continue;
        }
        int64_t r;
        bool ovf = __builtin_mul_overflow(n > 0 ? n - 1 : 0, it, &r);
        ovf = ovf || __builtin_add_overflow(r, n, &r);
        ovf = ovf || __builtin_add_overflow(r, lo, &r);
        ovf = ovf || __builtin_add_overflow(r, hi, &r);
        if (ovf)
            return op_fail(V, op, PLUMB_ERR_LIMIT, "result dimension %u overflows 64 bits", d);
        if (r < 0)
            return BAD("result dimension %u would be %lld = %lld + %lld + %lld + (%lld - 1) * %lld, which is negative (StableHLO C4)",
                       d, (long long)r, (long long)lo, (long long)hi, (long long)n, (long long)n,
                       (long long)it);
        want.dims[d] = r;
    }
    return expect_result(V, op, 0, &want, "C4");
}

static bool v_reverse(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    if (!dims_unique(V, op, "dimensions", &op->a.dims, "C2") ||
        !dims_in_range(V, op, "dimensions", &op->a.dims, in->rank, "operand", "C3"))
        return false;
    return expect_result(V, op, 0, in, "C1");
}

static bool v_reduce(vctx *V, const ir_op *op)
{
    uint32_t n = op->n_operands / 2;
    if (op->n_operands == 0 || op->n_operands % 2)
        return BAD("takes N inputs and N init values (2N operands, N >= 1), got %u operands (StableHLO C3)",
                   op->n_operands);
    if (op->n_results != n)
        return BAD("has %u results for %u inputs (StableHLO C3)", op->n_results, n);
    if (op->n_regions != 1)
        return BAD("needs exactly one body region, has %u", op->n_regions);
    const ir_type *t0 = &op->operands[0]->type;
    char od[200];
    for (uint32_t i = 1; i < n; i++)
        if (!same_shape(V, op, i, 0, "C1"))
            return false;
    for (uint32_t i = 0; i < n; i++) {
        if (op->operands[n + i]->type.rank != 0)
            return BAD("%s: init value must be 0-dimensional, has rank %u",
                       odesc(op, n + i, od, sizeof od), op->operands[n + i]->type.rank);
        if (!same_elem(V, op, n + i, i, "C2"))
            return false;
    }
    if (!dims_in_range(V, op, "dimensions", &op->a.dims, t0->rank, "input", "C4") ||
        !dims_unique(V, op, "dimensions", &op->a.dims, "C5"))
        return false;
    /* The body's element types Ei may be wider than the inputs' (C6). */
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 * n)
        return BAD("body takes %u arguments, expected %u scalars (StableHLO C6)", b->n_args, 2 * n);
    plumb_dtype *e = plumb_calloc(2 * (size_t)n, sizeof *e);
    if (!e)
        return op_fail(V, op, PLUMB_ERR_NOMEM, "out of memory");
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        plumb_dtype ei = b->args[i]->type.dtype;
        if ((unsigned)ei >= PLUMB_DTYPE_COUNT || !promotable(op->operands[i]->type.dtype, ei)) {
            ok = BAD("body argument %u has element type %s, which input %u's %s does not promote to (StableHLO C6)",
                     i, dt(ei), i, dt(op->operands[i]->type.dtype));
            break;
        }
        e[i] = e[n + i] = ei;
    }
    ok = ok && check_region(V, op, "body", b, e, 2 * n, e, n, "C6");
    ir_type all = *t0;   /* the inputs' common shape */
    for (uint32_t i = 1; i < n; i++)
        meet(&all, &op->operands[i]->type);
    for (uint32_t i = 0; i < n && ok; i++) {
        ir_type want = blank_type(e[i], 0);
        for (uint32_t d = 0; d < t0->rank; d++)
            if (!in_list(&op->a.dims, d)) {
                want.dims[want.rank] = all.dims[d];
                want.bounds[want.rank] = all.bounds[d];
                want.rank++;
            }
        ok = expect_result(V, op, i, &want, "C7, C8");
    }
    plumb_free(e, 2 * (size_t)n * sizeof *e);
    return ok;
}

/* reduce_window and select_and_scatter (docs/spec/window.md): one list
 * entry per dimension of the input (C4-C12 of reduce_window, C4-C8 of
 * select_and_scatter); the number of windows per dimension, computed with
 * every intermediate size checked for overflow. */
static bool v_window_attrs(vctx *V, const ir_op *op, uint32_t rank, bool dilations, const char *const *ids)
{
    const ir_attrs *a = &op->a;
    struct { const char *name; const ir_ints *l; const char *size_id, *pos_id; } lists[4] = {
        {"window_dimensions", &a->window_dims, ids[0], ids[1]},
        {"window_strides", &a->window_strides, ids[2], ids[3]},
        {"base_dilations", &a->base_dilations, ids[4], ids[5]},
        {"window_dilations", &a->window_dilations, ids[6], ids[7]},
    };
    if (!dilations && (a->base_dilations.n || a->window_dilations.n))
        return BAD("takes no base_dilations or window_dilations");
    for (uint32_t i = 0; i < 4; i++) {
        const ir_ints *l = lists[i].l;
        if ((i == 0 || l->n) && l->n != rank)
            return BAD("%s has %u entries, expected the input's rank %u (StableHLO %s)", lists[i].name, l->n, rank,
                       lists[i].size_id);
        for (uint32_t d = 0; d < l->n; d++)
            if (l->v[d] <= 0)
                return BAD("%s[%u] = %lld must be positive (StableHLO %s)", lists[i].name, d, (long long)l->v[d],
                           lists[i].pos_id);
    }
    if (a->padding.n && a->padding.n != 2 * rank)
        return BAD("padding has %u entries, expected shape [%u, 2] (StableHLO %s)", a->padding.n, rank, ids[8]);
    return true;
}

/* The number of windows along dimension d of an input of size `size`
 * (PLUMB_DIM_DYN allowed: the bound, when given, is used), or false with
 * the op and dimension named when a size overflows. */
static bool v_window_count(vctx *V, const ir_op *op, uint32_t d, int64_t size, int64_t *count)
{
    const ir_attrs *a = &op->a;
    int64_t w = a->window_dims.v[d], s = a->window_strides.n ? a->window_strides.v[d] : 1;
    int64_t b = a->base_dilations.n ? a->base_dilations.v[d] : 1, wd = a->window_dilations.n ? a->window_dilations.v[d] : 1;
    int64_t lo = a->padding.n ? a->padding.v[2 * d] : 0, hi = a->padding.n ? a->padding.v[2 * d + 1] : 0;
    int64_t dil = 0, pad, win;
    bool ovf = false;
    if (size > 0) {
        ovf |= __builtin_mul_overflow(size - 1, b, &dil);
        ovf |= __builtin_add_overflow(dil, 1, &dil);
    }
    ovf |= __builtin_add_overflow(lo, dil, &pad);
    ovf |= __builtin_add_overflow(pad, hi, &pad);
    ovf |= __builtin_mul_overflow(w - 1, wd, &win);
    ovf |= __builtin_add_overflow(win, 1, &win);
    if (ovf)
        return BAD("dimension %u: the dilated and padded input or the dilated window size overflows 64 bits "
                   "(size %lld, base dilation %lld, padding [%lld, %lld], window %lld, window dilation %lld)",
                   d, (long long)size, (long long)b, (long long)lo, (long long)hi, (long long)w, (long long)wd);
    *count = pad <= 0 || win > pad ? 0 : (pad - win) / s + 1;
    return true;
}

/* The result shape (number of windows per dimension) for input type t. */
static bool v_window_shape(vctx *V, const ir_op *op, const ir_type *t, plumb_dtype e, ir_type *want)
{
    *want = blank_type(e, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) {
        if (t->dims[d] == PLUMB_DIM_DYN) {
            want->dims[d] = PLUMB_DIM_DYN;
            if (t->bounds[d] != PLUMB_NO_BOUND && !v_window_count(V, op, d, t->bounds[d], &want->bounds[d]))
                return false;
            continue;
        }
        if (!v_window_count(V, op, d, t->dims[d], &want->dims[d]))
            return false;
    }
    return true;
}

static bool v_reduce_window(vctx *V, const ir_op *op)
{
    static const char *const ids[9] = {"C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C12"};
    uint32_t n = op->n_operands / 2;
    if (op->n_operands == 0 || op->n_operands % 2)
        return BAD("takes N inputs and N init values (2N operands, N >= 1), got %u operands (StableHLO C1)",
                   op->n_operands);
    if (op->n_results != n)
        return BAD("has %u results for %u inputs (StableHLO C1)", op->n_results, n);
    if (op->n_regions != 1)
        return BAD("needs exactly one body region, has %u", op->n_regions);
    char od[200];
    for (uint32_t i = 1; i < n; i++)
        if (!same_shape(V, op, i, 0, "C2"))
            return false;
    for (uint32_t i = 0; i < n; i++) {
        if (op->operands[n + i]->type.rank != 0)
            return BAD("%s: init value must be 0-dimensional, has rank %u", odesc(op, n + i, od, sizeof od),
                       op->operands[n + i]->type.rank);
        if (!same_elem(V, op, n + i, i, "C3"))
            return false;
    }
    const ir_type *t0 = &op->operands[0]->type;
    if (!v_window_attrs(V, op, t0->rank, true, ids))
        return false;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 * n)
        return BAD("body takes %u arguments, expected %u scalars (StableHLO C13)", b->n_args, 2 * n);
    if (n > 64)
        return BAD("has %u inputs; plumb takes at most 64", n);
    plumb_dtype e[2 * 64] = {0};
    for (uint32_t i = 0; i < n; i++) {
        plumb_dtype ei = b->args[i]->type.dtype;
        if ((unsigned)ei >= PLUMB_DTYPE_COUNT || !promotable(op->operands[i]->type.dtype, ei))
            return BAD("body argument %u has element type %s, which input %u's %s does not promote to (StableHLO C13)",
                       i, dt(ei), i, dt(op->operands[i]->type.dtype));
        e[i] = e[n + i] = ei;
    }
    if (!check_region(V, op, "body", b, e, 2 * n, e, n, "C13"))
        return false;
    ir_type all = *t0;
    for (uint32_t i = 1; i < n; i++)
        meet(&all, &op->operands[i]->type);
    for (uint32_t i = 0; i < n; i++) {
        ir_type want;
        if (!v_window_shape(V, op, &all, e[i], &want) || !expect_result(V, op, i, &want, "C14, C15, C16"))
            return false;
    }
    return true;
}

static bool v_select_and_scatter(vctx *V, const ir_op *op)
{
    static const char *const ids[9] = {"C4", "C5", "C6", "C7", "", "", "", "", "C8"};
    if (op->n_regions != 2)
        return BAD("needs two regions, select and scatter, has %u", op->n_regions);
    if (!same_elem(V, op, 1, 0, "C1") || !same_elem(V, op, 2, 0, "C3"))
        return false;
    const ir_type *t = &op->operands[0]->type;
    char od[200];
    if (op->operands[2]->type.rank != 0)
        return BAD("%s: init_value must be 0-dimensional, has rank %u", odesc(op, 2, od, sizeof od),
                   op->operands[2]->type.rank);
    if (!v_window_attrs(V, op, t->rank, false, ids))
        return false;
    plumb_dtype e[2] = {t->dtype, t->dtype}, pred = PLUMB_I1;
    if (!check_region(V, op, "select", &op->regions[0], e, 2, &pred, 1, "C9") ||
        !check_region(V, op, "scatter", &op->regions[1], e, 2, e, 1, "C10"))
        return false;
    ir_type src;
    if (!v_window_shape(V, op, t, t->dtype, &src))
        return false;
    const ir_type *got = &op->operands[1]->type;
    if (!type_compat(got, &src)) {
        char g[TSTR], w[TSTR];
        type_str(got, g, sizeof g);
        type_str(&src, w, sizeof w);
        return BAD("%s: source type %s does not match the number of windows %s (StableHLO C2)",
                   odesc(op, 1, od, sizeof od), g, w);
    }
    return expect_result(V, op, 0, t, "C11, C12");
}

/* dot_general's algorithm (docs/spec/dotalg.md): StableHLO C21-C24, then
 * the verifier's list of algorithms known to run somewhere, with its
 * message. */
static bool v_dot_algorithm(vctx *V, const ir_op *op)
{
    const ir_attrs *a = &op->a;
    const ir_dot_algorithm *g = &a->algorithm;
    if (g->lhs_component_count <= 0)
        return BAD("algorithm: lhs component count must be positive, found %lld (StableHLO C22)",
                   (long long)g->lhs_component_count);
    if (g->rhs_component_count <= 0)
        return BAD("algorithm: rhs component count must be positive, found %lld (StableHLO C23)",
                   (long long)g->rhs_component_count);
    if (g->num_primitive_operations <= 0)
        return BAD("algorithm: num primitive operations must be positive, found %lld (StableHLO C24)",
                   (long long)g->num_primitive_operations);
    if (a->has_precision && (a->precision[0] != IR_PREC_DEFAULT || a->precision[1] != IR_PREC_DEFAULT))
        return BAD("must specify DEFAULT precision config when algorithm is set (StableHLO C21)");
    if (!ir_dotalg_known(g)) {
        char d[200];
        ir_dotalg_describe(g, d, sizeof d);
        return BAD("dot algorithm not known to be supported on any hardware: %s", d);
    }
    for (uint32_t i = 0; i < 2; i++)
        if (plumb_dtype_is_complex(op->operands[i]->type.dtype))
            return op_fail(V, op, PLUMB_ERR_UNSUPPORTED,
                           "unsupported: dot algorithm with complex operands (plumb rounds real operands only)");
    return true;
}

static bool v_dot_general(vctx *V, const ir_op *op)
{
    const ir_type *l = &op->operands[0]->type, *r = &op->operands[1]->type;
    const ir_attrs *a = &op->a;
    if (a->lhs_batch.n != a->rhs_batch.n)
        return BAD("lhs_batching_dimensions has %u entries but rhs_batching_dimensions has %u (StableHLO C1)",
                   a->lhs_batch.n, a->rhs_batch.n);
    if (a->lhs_contract.n != a->rhs_contract.n)
        return BAD("lhs_contracting_dimensions has %u entries but rhs_contracting_dimensions has %u (StableHLO C2)",
                   a->lhs_contract.n, a->rhs_contract.n);
    if (!dims_unique(V, op, "lhs_batching_dimensions", &a->lhs_batch, "C3") ||
        !dims_unique(V, op, "lhs_contracting_dimensions", &a->lhs_contract, "C3") ||
        !dims_disjoint(V, op, "lhs_batching_dimensions", &a->lhs_batch, "lhs_contracting_dimensions",
                       &a->lhs_contract, "C3") ||
        !dims_unique(V, op, "rhs_batching_dimensions", &a->rhs_batch, "C4") ||
        !dims_unique(V, op, "rhs_contracting_dimensions", &a->rhs_contract, "C4") ||
        !dims_disjoint(V, op, "rhs_batching_dimensions", &a->rhs_batch, "rhs_contracting_dimensions",
                       &a->rhs_contract, "C4") ||
        !dims_in_range(V, op, "lhs_batching_dimensions", &a->lhs_batch, l->rank, "lhs", "C5") ||
        !dims_in_range(V, op, "lhs_contracting_dimensions", &a->lhs_contract, l->rank, "lhs", "C6") ||
        !dims_in_range(V, op, "rhs_batching_dimensions", &a->rhs_batch, r->rank, "rhs", "C7") ||
        !dims_in_range(V, op, "rhs_contracting_dimensions", &a->rhs_contract, r->rank, "rhs", "C8"))
        return false;
    for (uint32_t i = 0; i < a->lhs_batch.n; i++) {
        int64_t x = l->dims[a->lhs_batch.v[i]], y = r->dims[a->rhs_batch.v[i]];
        if (!dim_compat_b(x, l->bounds[a->lhs_batch.v[i]], y, r->bounds[a->rhs_batch.v[i]]))
            return BAD("batching dimension pair %u: lhs dimension %lld has size %s but rhs dimension %lld has size %s (StableHLO C9)",
                       i, (long long)a->lhs_batch.v[i], dim_str(x, l->bounds[a->lhs_batch.v[i]]).s,
                       (long long)a->rhs_batch.v[i], dim_str(y, r->bounds[a->rhs_batch.v[i]]).s);
    }
    for (uint32_t i = 0; i < a->lhs_contract.n; i++) {
        int64_t x = l->dims[a->lhs_contract.v[i]], y = r->dims[a->rhs_contract.v[i]];
        if (!dim_compat_b(x, l->bounds[a->lhs_contract.v[i]], y, r->bounds[a->rhs_contract.v[i]]))
            return BAD("contracting dimension pair %u: lhs dimension %lld has size %s but rhs dimension %lld has size %s (StableHLO C10)",
                       i, (long long)a->lhs_contract.v[i], dim_str(x, l->bounds[a->lhs_contract.v[i]]).s,
                       (long long)a->rhs_contract.v[i], dim_str(y, r->bounds[a->rhs_contract.v[i]]).s);
    }
    plumb_dtype el = l->dtype, er = r->dtype, eo = op->results[0]->type.dtype;
    /* Mixed lhs/rhs element types are accepted (precision is then at least
     * that of the narrower input); a float input needs a float result. */
    if ((plumb_dtype_is_float(el) || plumb_dtype_is_float(er)) && !plumb_dtype_is_float(eo))
        return BAD("result element type %s must be a float type for inputs %s and %s",
                   dt(eo), dt(el), dt(er));
    if (a->algorithm.present && !v_dot_algorithm(V, op))
        return false;
    ir_type want = blank_type(eo, 0);
    for (uint32_t i = 0; i < a->lhs_batch.n; i++) {
        want.dims[want.rank] = l->dims[a->lhs_batch.v[i]];
        want.bounds[want.rank] = l->bounds[a->lhs_batch.v[i]];
        meet_dim(&want.dims[want.rank], &want.bounds[want.rank], r->dims[a->rhs_batch.v[i]], r->bounds[a->rhs_batch.v[i]]);
        want.rank++;
    }
    for (uint32_t d = 0; d < l->rank; d++)
        if (!in_list(&a->lhs_batch, d) && !in_list(&a->lhs_contract, d)) {
            if (want.rank >= PLUMB_MAX_RANK)
                return BAD("result rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
            want.dims[want.rank] = l->dims[d];
            want.bounds[want.rank++] = l->bounds[d];
        }
    for (uint32_t d = 0; d < r->rank; d++)
        if (!in_list(&a->rhs_batch, d) && !in_list(&a->rhs_contract, d)) {
            if (want.rank >= PLUMB_MAX_RANK)
                return BAD("result rank exceeds the maximum rank %d", PLUMB_MAX_RANK);
            want.dims[want.rank] = r->dims[d];
            want.bounds[want.rank++] = r->bounds[d];
        }
    return expect_result(V, op, 0, &want, "C12");
}

/* The non-spatial and spatial dimension numbers of one operand (C13, C18,
 * C20): each in [0, N), no two equal. */
static bool conv_dims_ok(vctx *V, const ir_op *op, const char *which, int64_t d0, const char *n0, int64_t d1,
                         const char *n1, const int64_t *sp, uint32_t n_sp, uint32_t rank, const char *constraint)
{
    int64_t all[PLUMB_MAX_RANK + 2];
    const char *names[PLUMB_MAX_RANK + 2];
    char spn[IR_CONV_MAX_SPATIAL][48];
    all[0] = d0;
    names[0] = n0;
    all[1] = d1;
    names[1] = n1;
    for (uint32_t k = 0; k < n_sp && k < IR_CONV_MAX_SPATIAL; k++) {
        snprintf(spn[k], sizeof spn[k], "%s_spatial_dimensions[%u]", which, k);
        all[k + 2] = sp[k];
        names[k + 2] = spn[k];
    }
    for (uint32_t i = 0; i < n_sp + 2; i++) {
        if (all[i] < 0 || all[i] >= (int64_t)rank)
            return BAD("%s = %lld is out of range for rank %u (StableHLO %s)", names[i], (long long)all[i], rank,
                       constraint);
        for (uint32_t j = 0; j < i; j++)
            if (all[i] == all[j])
                return BAD("%s and %s are both %lld (StableHLO %s)", names[j], names[i], (long long)all[i], constraint);
    }
    return true;
}

/* One window list: empty (its default) or N - 2 entries, each > 0 when
 * positive is set. */
static bool conv_window_list(vctx *V, const ir_op *op, const char *name, const int64_t *v, uint32_t n, uint32_t want,
                             bool positive, const char *c_size, const char *c_pos)
{
    if (n != 0 && n != want)
        return BAD("%s has %u entries, expected %u (rank - 2) (StableHLO %s)", name, n, want, c_size);
    for (uint32_t i = 0; positive && i < n; i++)
        if (v[i] <= 0)
            return BAD("%s[%u] = %lld must be positive (StableHLO %s)", name, i, (long long)v[i], c_pos);
    return true;
}

/* StableHLO's convolution constraints (ids as in the spec); the result
 * shape rule C25 with every step checked for int64 overflow. cv is the op's
 * attributes (dynamic_conv: with its padding filled in when it is known).
 * dyn (dynamic_conv only): lhs and rhs may have '?' dimensions and the
 * padding may be unknown (pad_known false); every rule whose sizes are not
 * all known is left to run time (ir_shape_infer runs this rule again on the
 * actual sizes and padding) and the result dimensions it would give are
 * inferred as '?'. */
static bool conv_rule(vctx *V, const ir_op *op, const ir_conv *cv, bool dyn, bool pad_known)
{
    const ir_type *l = &op->operands[0]->type, *r = &op->operands[1]->type, *o = &op->results[0]->type;
    if (!cv)
        return BAD("dimension_numbers is missing");
    for (uint32_t i = 0; i < 2 && !dyn; i++)
        if (!ir_type_is_static(&op->operands[i]->type))
            return op_fail(V, op, PLUMB_ERR_UNSUPPORTED, "unsupported: operand %u has a '?' dimension (use stablehlo.dynamic_conv, whose lhs and rhs may be polymorphic)", i);
    if (l->rank != r->rank)
        return BAD("lhs has rank %u but rhs has rank %u (StableHLO C1)", l->rank, r->rank);
    if (l->rank < 2)
        return BAD("lhs has rank %u; a convolution needs at least a batch and a feature dimension (StableHLO C1, C12)", l->rank);
    uint32_t N = l->rank, S = N - 2;
    if (cv->n_spatial != S)
        return BAD("dimension numbers list %u spatial dimensions, but lhs has rank %u (StableHLO C12, C17, C19)",
                   cv->n_spatial, N);
    if (!conv_window_list(V, op, "window_strides", cv->strides, cv->n_strides, S, true, "C2", "C3"))
        return false;
    if (cv->n_padding != 0 && cv->n_padding != S)
        return BAD("padding has shape [%u, 2], expected [%u, 2] (StableHLO C4)", cv->n_padding, S);
    if (!conv_window_list(V, op, "lhs_dilation", cv->lhs_dilation, cv->n_lhs_dilation, S, true, "C5", "C6") ||
        !conv_window_list(V, op, "rhs_dilation", cv->rhs_dilation, cv->n_rhs_dilation, S, true, "C7", "C8"))
        return false;
    if (cv->n_reversal != 0 && cv->n_reversal != S)
        return BAD("window_reversal has %u entries, expected %u (rank - 2) (StableHLO C9)", cv->n_reversal, S);
    if (o->rank != N)
        return BAD("result has rank %u, expected %u (StableHLO C26)", o->rank, N);
    if (!conv_dims_ok(V, op, "input", cv->in_batch, "input_batch_dimension", cv->in_feature, "input_feature_dimension",
                      cv->in_spatial, S, N, "C13") ||
        !conv_dims_ok(V, op, "kernel", cv->k_in_feature, "kernel_input_feature_dimension", cv->k_out_feature,
                      "kernel_output_feature_dimension", cv->k_spatial, S, N, "C18") ||
        !conv_dims_ok(V, op, "output", cv->out_batch, "output_batch_dimension", cv->out_feature,
                      "output_feature_dimension", cv->out_spatial, S, N, "C20"))
        return false;
    int64_t fgc = cv->feature_group_count, bgc = cv->batch_group_count;
    if (fgc <= 0)
        return BAD("feature_group_count = %lld must be positive (StableHLO C21)", (long long)fgc);
    if (bgc <= 0)
        return BAD("batch_group_count = %lld must be positive (StableHLO C22)", (long long)bgc);
    if (fgc != 1 && bgc != 1)
        return BAD("feature_group_count = %lld and batch_group_count = %lld: one of them must be 1 (StableHLO C23)",
                   (long long)fgc, (long long)bgc);
    int64_t B = l->dims[cv->in_batch], C = l->dims[cv->in_feature];
    int64_t KI = r->dims[cv->k_in_feature], KO = r->dims[cv->k_out_feature];
#define KNOWN(x) ((x) != PLUMB_DIM_DYN)
    if (KNOWN(B) && B % bgc != 0)
        return BAD("lhs batch dimension %lld has size %lld, not a multiple of batch_group_count = %lld (StableHLO C10)",
                   (long long)cv->in_batch, (long long)B, (long long)bgc);
    if (KNOWN(C) && C % fgc != 0)
        return BAD("lhs feature dimension %lld has size %lld, not a multiple of feature_group_count = %lld (StableHLO C11)",
                   (long long)cv->in_feature, (long long)C, (long long)fgc);
    if (KNOWN(KI) && KNOWN(C) && KI != C / fgc)
        return BAD("rhs kernel input feature dimension %lld has size %lld, expected lhs features %lld / feature_group_count %lld = %lld (StableHLO C14)",
                   (long long)cv->k_in_feature, (long long)KI, (long long)C, (long long)fgc, (long long)(C / fgc));
    if (KNOWN(KO) && KO % bgc != 0)
        return BAD("rhs kernel output feature dimension %lld has size %lld, not a multiple of batch_group_count = %lld (StableHLO C15)",
                   (long long)cv->k_out_feature, (long long)KO, (long long)bgc);
    if (KNOWN(KO) && KO % fgc != 0)
        return BAD("rhs kernel output feature dimension %lld has size %lld, not a multiple of feature_group_count = %lld (StableHLO C16)",
                   (long long)cv->k_out_feature, (long long)KO, (long long)fgc);
    plumb_dtype el = l->dtype, er = r->dtype, eo = o->dtype;
    bool fl = plumb_dtype_is_float(el), fr = plumb_dtype_is_float(er), fo = plumb_dtype_is_float(eo);
    /* complex: C27 as the spec writes it, one element type for lhs, rhs
     * and result (docs/spec/conv.md) */
    if ((plumb_dtype_is_complex(el) || plumb_dtype_is_complex(er) || plumb_dtype_is_complex(eo)) && (el != er || el != eo))
        return BAD("lhs %s, rhs %s and result %s must have one complex element type (StableHLO C27)", dt(el), dt(er), dt(eo));
    /* as dot_general: mixed input types are accepted; a float input needs a
     * float result, and integer inputs an integer (or i1) result */
    if ((fl || fr) && !fo)
        return BAD("result element type %s must be a float type for inputs %s and %s (StableHLO C27)", dt(eo), dt(el), dt(er));
    if (!fl && !fr && fo)
        return BAD("result element type %s must be an integer type for inputs %s and %s (StableHLO C27)", dt(eo), dt(el), dt(er));
    if (plumb_dtype_is_bool(eo) != (plumb_dtype_is_bool(el) && plumb_dtype_is_bool(er)))
        return BAD("result element type %s: i1 results need i1 inputs and i1 inputs an i1 result (inputs %s and %s) (StableHLO C27)",
                   dt(eo), dt(el), dt(er));
    ir_type want = blank_type(eo, N);
    want.dims[cv->out_batch] = KNOWN(B) ? B / bgc : PLUMB_DIM_DYN;
    want.dims[cv->out_feature] = KO;
    for (uint32_t k = 0; k < S; k++) {
        int64_t in = l->dims[cv->in_spatial[k]], w = r->dims[cv->k_spatial[k]];
        if (!pad_known || !KNOWN(in) || !KNOWN(w)) {
            want.dims[cv->out_spatial[k]] = PLUMB_DIM_DYN;   /* known when the op runs */
            continue;
        }
        int64_t ld = cv->n_lhs_dilation ? cv->lhs_dilation[k] : 1, rd = cv->n_rhs_dilation ? cv->rhs_dilation[k] : 1;
        int64_t lo = cv->n_padding ? cv->pad_lo[k] : 0, hi = cv->n_padding ? cv->pad_hi[k] : 0;
        int64_t st = cv->n_strides ? cv->strides[k] : 1;
        int64_t din = 0, dw = 0, padded;
        /* (in - 1) * ld + 1 and lo + din + hi, each step checked */
        if (in > 0 && (__builtin_mul_overflow(in - 1, ld, &din) || __builtin_add_overflow(din, 1, &din)))
            return BAD("lhs dimension %lld (spatial %u): (%lld - 1) * lhs_dilation %lld + 1 overflows",
                       (long long)cv->in_spatial[k], k, (long long)in, (long long)ld);
        if (__builtin_add_overflow(din, lo, &padded) || __builtin_add_overflow(padded, hi, &padded))
            return BAD("lhs dimension %lld (spatial %u): padding %lld + dilated size %lld + padding %lld overflows",
                       (long long)cv->in_spatial[k], k, (long long)lo, (long long)din, (long long)hi);
        if (w > 0 && (__builtin_mul_overflow(w - 1, rd, &dw) || __builtin_add_overflow(dw, 1, &dw)))
            return BAD("rhs dimension %lld (spatial %u): (%lld - 1) * rhs_dilation %lld + 1 overflows",
                       (long long)cv->k_spatial[k], k, (long long)w, (long long)rd);
        int64_t windows = padded <= 0 || dw > padded ? 0 : (padded - dw) / st + 1;
        want.dims[cv->out_spatial[k]] = windows;
    }
#undef KNOWN
    if (!check_type(V, op->loc, "", "convolution result", &want))
        return false;
    return expect_result(V, op, 0, &want, "C25");
}

static bool v_convolution(vctx *V, const ir_op *op)
{
    /* a '?' lhs or rhs dimension (JAX's shape-polymorphic exports): the
     * rules whose sizes are not known run when the op does (ir/shape.c) */
    bool dyn = !ir_type_is_static(&op->operands[0]->type) || !ir_type_is_static(&op->operands[1]->type);
    return conv_rule(V, op, op->a.conv, dyn, true);
}

/* stablehlo.dynamic_conv: convolution with its padding read from operand 2
 * (d_padding, [N - 2, 2] of any integer type: row k is spatial dimension
 * k's (low, high); negative values remove elements, as convolution's
 * padding does). Every convolution rule applies with the same ids; C4 is
 * the operand's shape. When d_padding is a stablehlo.constant the padding
 * is known and the result shape is checked here, else when the op runs
 * (ir_shape_infer, docs/spec/dynamic.md). */
static bool v_dynamic_conv(vctx *V, const ir_op *op)
{
    const ir_conv *cv = op->a.conv;
    const ir_type *l = &op->operands[0]->type, *pt = &op->operands[2]->type;
    char od[200];
    if (!cv)
        return BAD("dimension_numbers is missing");
    if (cv->n_padding)
        return BAD("has a padding attribute; dynamic_conv takes its padding from operand 2 (d_padding) only");
    if (!plumb_dtype_is_int(pt->dtype) || plumb_dtype_is_bool(pt->dtype))
        return BAD("%s: d_padding must have an integer element type, not %s", odesc(op, 2, od, sizeof od),
                   dt(pt->dtype));
    if (l->rank < 2 || l->rank != op->operands[1]->type.rank)
        return conv_rule(V, op, cv, true, false);   /* reports C1 */
    uint32_t S = l->rank - 2;
    if (pt->rank != 2 || (pt->dims[0] != PLUMB_DIM_DYN && pt->dims[0] != (int64_t)S) ||
        (pt->dims[1] != PLUMB_DIM_DYN && pt->dims[1] != 2)) {
        char ts[TSTR];
        type_str(pt, ts, sizeof ts);
        return BAD("%s: d_padding has type %s, expected shape [%u, 2] (rank(lhs) - 2 rows of (low, high)) (StableHLO C4)",
                   odesc(op, 2, od, sizeof od), ts, S);
    }
    /* a constant d_padding: the padding is known now */
    const ir_value *pv = op->operands[2];
    const plumb_tensor *c = pv->def && pv->def->code == PLUMB_OP_CONSTANT ? pv->def->a.value : NULL;
    if (c && c->rank == 2 && c->dims[0] == (int64_t)S && c->dims[1] == 2 && plumb_dtype_is_int(c->dtype) &&
        S <= IR_CONV_MAX_SPATIAL) {
        ir_conv full = *cv;
        for (uint32_t k = 0; k < S; k++) {
            for (uint32_t j = 0; j < 2; j++) {
                int64_t v = plumb_load_i64(c->dtype, c->data, 2 * k + j);
                if (c->dtype == PLUMB_UI64 && v < 0)
                    return BAD("%s: d_padding[%u][%u] = %llu does not fit a signed 64-bit padding",
                               odesc(op, 2, od, sizeof od), k, j, (unsigned long long)(uint64_t)v);
                if (j == 0) full.pad_lo[k] = v;
                else full.pad_hi[k] = v;
            }
        }
        full.n_padding = S;
        return conv_rule(V, op, &full, true, true);
    }
    return conv_rule(V, op, cv, true, false);
}

static bool v_dot(vctx *V, const ir_op *op)
{
    const ir_type *l = &op->operands[0]->type, *r = &op->operands[1]->type;
    plumb_dtype el = l->dtype, er = r->dtype, eo = op->results[0]->type.dtype;
    if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2)
        return BAD("lhs and rhs must have rank 1 or 2, have %u and %u", l->rank, r->rank);
    int64_t k1 = l->dims[l->rank - 1], k2 = r->dims[0];
    if (!dim_compat_b(k1, l->bounds[l->rank - 1], k2, r->bounds[0]))
        return BAD("lhs's last dimension (%s) does not match rhs's first dimension (%s)",
                   dim_str(k1, l->bounds[l->rank - 1]).s, dim_str(k2, r->bounds[0]).s);
    if ((plumb_dtype_is_float(el) || plumb_dtype_is_float(er)) && !plumb_dtype_is_float(eo))
        return BAD("result element type %s must be a float type for inputs %s and %s",
                   dt(eo), dt(el), dt(er));
    ir_type want = blank_type(eo, 0);
    if (l->rank == 2) {
        want.dims[want.rank] = l->dims[0];
        want.bounds[want.rank++] = l->bounds[0];
    }
    if (r->rank == 2) {
        want.dims[want.rank] = r->dims[1];
        want.bounds[want.rank++] = r->bounds[1];
    }
    return expect_result(V, op, 0, &want, "dot: [m]x[k] . [k]x[n] -> [m]x[n]");
}

/* index_vector_dim: the builder's -1 means "not written", whose StableHLO
 * default is 0. */
static int64_t index_vector_dim(const ir_op *op)
{
    return op->a.index_vector_dim == -1 ? 0 : op->a.index_vector_dim;
}

/* gather and dynamic_gather: sizes are the slice sizes, or NULL when
 * dynamic_gather's slice_sizes operand is not a constant (its values are
 * then checked at run time and the offset dimensions are inferred as '?'). */
static bool gather_rules(vctx *V, const ir_op *op, const ir_ints *sizes)
{
    const ir_type *in = &op->operands[0]->type, *idx = &op->operands[1]->type;
    const ir_type *out = &op->results[0]->type;
    const ir_attrs *a = &op->a;
    int64_t ivd = index_vector_dim(op);
    char od[200];
    if (!plumb_dtype_is_int(idx->dtype))
        return BAD("%s: start_indices must have an integer element type, not %s",
                   odesc(op, 1, od, sizeof od), dt(idx->dtype));
    if (in->rank != a->offset_dims.n + a->collapsed_slice_dims.n + a->operand_batching_dims.n)
        return BAD("operand rank %u != size(offset_dims) %u + size(collapsed_slice_dims) %u + size(operand_batching_dims) %u (StableHLO C1)",
                   in->rank, a->offset_dims.n, a->collapsed_slice_dims.n, a->operand_batching_dims.n);
    if (ivd < 0 || ivd > (int64_t)idx->rank)
        return BAD("index_vector_dim = %lld is outside [0, %u], the start_indices rank (StableHLO C2)",
                   (long long)ivd, idx->rank);
    int64_t nidx = ivd < (int64_t)idx->rank ? idx->dims[ivd] : 1;
    if (nidx != PLUMB_DIM_DYN && (int64_t)a->start_index_map.n != nidx)
        return BAD("start_index_map has %u entries but the index vector has %lld (StableHLO C3)",
                   a->start_index_map.n, (long long)nidx);
    if (!dims_unique(V, op, "offset_dims", &a->offset_dims, "C4") ||
        !dims_sorted(V, op, "offset_dims", &a->offset_dims, "C4") ||
        !dims_in_range(V, op, "offset_dims", &a->offset_dims, out->rank, "result", "C5") ||
        !dims_unique(V, op, "collapsed_slice_dims", &a->collapsed_slice_dims, "C6") ||
        !dims_unique(V, op, "operand_batching_dims", &a->operand_batching_dims, "C6") ||
        !dims_disjoint(V, op, "collapsed_slice_dims", &a->collapsed_slice_dims,
                       "operand_batching_dims", &a->operand_batching_dims, "C6") ||
        !dims_sorted(V, op, "collapsed_slice_dims", &a->collapsed_slice_dims, "C7") ||
        !dims_in_range(V, op, "collapsed_slice_dims", &a->collapsed_slice_dims, in->rank, "operand", "C8") ||
        !dims_sorted(V, op, "operand_batching_dims", &a->operand_batching_dims, "C10") ||
        !dims_in_range(V, op, "operand_batching_dims", &a->operand_batching_dims, in->rank, "operand", "C11") ||
        !dims_unique(V, op, "start_indices_batching_dims", &a->start_indices_batching_dims, "C13") ||
        !dims_in_range(V, op, "start_indices_batching_dims", &a->start_indices_batching_dims, idx->rank,
                       "start_indices", "C14"))
        return false;
    if (sizes && sizes->n != in->rank)
        return BAD("slice_sizes has %u entries, expected the operand's rank %u (StableHLO C20)",
                   sizes->n, in->rank);
    for (uint32_t i = 0; sizes && i < a->collapsed_slice_dims.n; i++)
        if (sizes->v[a->collapsed_slice_dims.v[i]] > 1)
            return BAD("slice_sizes[%lld] = %lld must be at most 1 for a collapsed slice dimension (StableHLO C9)",
                       (long long)a->collapsed_slice_dims.v[i], (long long)sizes->v[a->collapsed_slice_dims.v[i]]);
    for (uint32_t i = 0; sizes && i < a->operand_batching_dims.n; i++)
        if (sizes->v[a->operand_batching_dims.v[i]] > 1)
            return BAD("slice_sizes[%lld] = %lld must be at most 1 for an operand batching dimension (StableHLO C12)",
                       (long long)a->operand_batching_dims.v[i], (long long)sizes->v[a->operand_batching_dims.v[i]]);
    if (in_list(&a->start_indices_batching_dims, ivd))
        return BAD("index_vector_dim = %lld must not be one of start_indices_batching_dims (StableHLO C15)",
                   (long long)ivd);
    if (a->operand_batching_dims.n != a->start_indices_batching_dims.n)
        return BAD("operand_batching_dims has %u entries but start_indices_batching_dims has %u (StableHLO C16)",
                   a->operand_batching_dims.n, a->start_indices_batching_dims.n);
    for (uint32_t i = 0; i < a->operand_batching_dims.n; i++) {
        int64_t pd = a->operand_batching_dims.v[i], sd = a->start_indices_batching_dims.v[i];
        if (!dim_compat_b(in->dims[pd], in->bounds[pd], idx->dims[sd], idx->bounds[sd]))
            return BAD("batching dimension pair %u: operand dimension size %s != start_indices dimension size %s (StableHLO C17)",
                       i, dim_str(in->dims[pd], in->bounds[pd]).s, dim_str(idx->dims[sd], idx->bounds[sd]).s);
    }
    if (!dims_unique(V, op, "start_index_map", &a->start_index_map, "C18") ||
        !dims_disjoint(V, op, "start_index_map", &a->start_index_map, "operand_batching_dims",
                       &a->operand_batching_dims, "C18") ||
        !dims_in_range(V, op, "start_index_map", &a->start_index_map, in->rank, "operand", "C19"))
        return false;
    for (uint32_t d = 0; sizes && d < in->rank; d++)
        if (sizes->v[d] < 0 || (in->dims[d] != PLUMB_DIM_DYN && sizes->v[d] > in->dims[d]) ||
            (in->dims[d] == PLUMB_DIM_DYN && in->bounds[d] != PLUMB_NO_BOUND && sizes->v[d] > in->bounds[d]))
            return BAD("slice_sizes[%u] = %lld is outside [0, %s], the operand's dimension size (StableHLO C21)",
                       d, (long long)sizes->v[d], dim_str(in->dims[d], in->bounds[d]).s);
    /* C22: batch dims (start_indices without index_vector_dim) fill the
     * result axes not in offset_dims; the kept slice sizes fill offset_dims. */
    uint32_t nbatch = idx->rank - (ivd < (int64_t)idx->rank ? 1 : 0);
    uint32_t rank = nbatch + a->offset_dims.n;
    if (out->rank != rank)
        return BAD("result has rank %u, expected %u batch dimensions + %u offset dimensions (StableHLO C22)",
                   out->rank, nbatch, a->offset_dims.n);
    ir_type want = blank_type(in->dtype, rank);
    uint32_t bi = 0, oi = 0;
    for (uint32_t d = 0; d < rank; d++) {
        if (in_list(&a->offset_dims, d)) {
            while (in_list(&a->collapsed_slice_dims, oi) || in_list(&a->operand_batching_dims, oi))
                oi++;
            want.dims[d] = sizes ? sizes->v[oi] : PLUMB_DIM_DYN;
            oi++;
        } else {
            if ((int64_t)bi == ivd)
                bi++;
            want.dims[d] = idx->dims[bi];
            want.bounds[d] = idx->bounds[bi];
            bi++;
        }
    }
    return expect_result(V, op, 0, &want, "C22, C23");
}

static bool v_gather(vctx *V, const ir_op *op)
{
    return gather_rules(V, op, &op->a.sizes);
}

static bool v_scatter(vctx *V, const ir_op *op)
{
    if (op->n_operands < 3 || op->n_operands % 2 == 0)
        return BAD("takes N inputs, the scatter indices and N updates (2N + 1 operands, N >= 1), got %u (StableHLO C5)",
                   op->n_operands);
    uint32_t n = (op->n_operands - 1) / 2;
    if (op->n_results != n)
        return BAD("has %u results for %u inputs (StableHLO C24)", op->n_results, n);
    if (op->n_regions != 1)
        return BAD("needs exactly one update_computation region, has %u", op->n_regions);
    const ir_type *in = &op->operands[0]->type, *idx = &op->operands[n]->type;
    const ir_type *up = &op->operands[n + 1]->type;
    const ir_attrs *a = &op->a;
    int64_t ivd = index_vector_dim(op);
    char od[200];
    for (uint32_t i = 1; i < n; i++)
        if (!same_shape(V, op, i, 0, "C1"))
            return false;
    for (uint32_t i = 1; i < n; i++)
        if (!same_shape(V, op, n + 1 + i, n + 1, "C3"))
            return false;
    for (uint32_t i = 0; i < n; i++)
        if (!same_elem(V, op, n + 1 + i, i, "C6"))
            return false;
    if (!plumb_dtype_is_int(idx->dtype))
        return BAD("%s: scatter_indices must have an integer element type, not %s",
                   odesc(op, n, od, sizeof od), dt(idx->dtype));
    if (in->rank != a->update_window_dims.n + a->inserted_window_dims.n + a->input_batching_dims.n)
        return BAD("input rank %u != size(update_window_dims) %u + size(inserted_window_dims) %u + size(input_batching_dims) %u (StableHLO C2)",
                   in->rank, a->update_window_dims.n, a->inserted_window_dims.n, a->input_batching_dims.n);
    if (ivd < 0 || ivd > (int64_t)idx->rank)
        return BAD("index_vector_dim = %lld is outside [0, %u], the scatter_indices rank (StableHLO C22)",
                   (long long)ivd, idx->rank);
    if (!dims_unique(V, op, "update_window_dims", &a->update_window_dims, "C7") ||
        !dims_sorted(V, op, "update_window_dims", &a->update_window_dims, "C7") ||
        !dims_in_range(V, op, "update_window_dims", &a->update_window_dims, up->rank, "updates", "C8") ||
        !dims_unique(V, op, "inserted_window_dims", &a->inserted_window_dims, "C9") ||
        !dims_unique(V, op, "input_batching_dims", &a->input_batching_dims, "C9") ||
        !dims_disjoint(V, op, "inserted_window_dims", &a->inserted_window_dims, "input_batching_dims",
                       &a->input_batching_dims, "C9") ||
        !dims_sorted(V, op, "inserted_window_dims", &a->inserted_window_dims, "C10") ||
        !dims_in_range(V, op, "inserted_window_dims", &a->inserted_window_dims, in->rank, "input", "C11") ||
        !dims_sorted(V, op, "input_batching_dims", &a->input_batching_dims, "C12") ||
        !dims_in_range(V, op, "input_batching_dims", &a->input_batching_dims, in->rank, "input", "C13") ||
        !dims_unique(V, op, "scatter_indices_batching_dims", &a->scatter_indices_batching_dims, "C14") ||
        !dims_in_range(V, op, "scatter_indices_batching_dims", &a->scatter_indices_batching_dims, idx->rank,
                       "scatter_indices", "C15"))
        return false;
    if (in_list(&a->scatter_indices_batching_dims, ivd))
        return BAD("index_vector_dim = %lld must not be one of scatter_indices_batching_dims (StableHLO C16)",
                   (long long)ivd);
    if (a->input_batching_dims.n != a->scatter_indices_batching_dims.n)
        return BAD("input_batching_dims has %u entries but scatter_indices_batching_dims has %u (StableHLO C17)",
                   a->input_batching_dims.n, a->scatter_indices_batching_dims.n);
    for (uint32_t i = 0; i < a->input_batching_dims.n; i++) {
        int64_t id = a->input_batching_dims.v[i], sd = a->scatter_indices_batching_dims.v[i];
        if (!dim_compat_b(in->dims[id], in->bounds[id], idx->dims[sd], idx->bounds[sd]))
            return BAD("batching dimension pair %u: input dimension size %s != scatter_indices dimension size %s (StableHLO C18)",
                       i, dim_str(in->dims[id], in->bounds[id]).s, dim_str(idx->dims[sd], idx->bounds[sd]).s);
    }
    int64_t nidx = ivd < (int64_t)idx->rank ? idx->dims[ivd] : 1;
    if (nidx != PLUMB_DIM_DYN && (int64_t)a->scatter_dims_to_operand_dims.n != nidx)
        return BAD("scatter_dims_to_operand_dims has %u entries but the index vector has %lld (StableHLO C19)",
                   a->scatter_dims_to_operand_dims.n, (long long)nidx);
    if (!dims_unique(V, op, "scatter_dims_to_operand_dims", &a->scatter_dims_to_operand_dims, "C20") ||
        !dims_disjoint(V, op, "scatter_dims_to_operand_dims", &a->scatter_dims_to_operand_dims,
                       "input_batching_dims", &a->input_batching_dims, "C20") ||
        !dims_in_range(V, op, "scatter_dims_to_operand_dims", &a->scatter_dims_to_operand_dims, in->rank,
                       "input", "C21"))
        return false;
    /* C4: updates = scatter dims (scatter_indices without index_vector_dim)
     * on the axes not in update_window_dims, and window sizes no larger than
     * the input's kept dimensions on update_window_dims. */
    uint32_t nscatter = idx->rank - (ivd < (int64_t)idx->rank ? 1 : 0);
    if (up->rank != nscatter + a->update_window_dims.n)
        return BAD("updates have rank %u, expected %u scatter dimensions + %u window dimensions (StableHLO C4)",
                   up->rank, nscatter, a->update_window_dims.n);
    uint32_t si = 0, wi = 0;
    for (uint32_t d = 0; d < up->rank; d++) {
        if (in_list(&a->update_window_dims, d)) {
            while (in_list(&a->inserted_window_dims, wi) || in_list(&a->input_batching_dims, wi))
                wi++;
            int64_t u = up->dims[d], lim = in->dims[wi];
            if (u != PLUMB_DIM_DYN && lim != PLUMB_DIM_DYN && u > lim)
                return BAD("updates dimension %u (a window dimension) has size %lld, larger than input dimension %u's %lld (StableHLO C4)",
                           d, (long long)u, wi, (long long)lim);
            wi++;
        } else {
            if ((int64_t)si == ivd)
                si++;
            if (!dim_compat_b(up->dims[d], up->bounds[d], idx->dims[si], idx->bounds[si]))
                return BAD("updates dimension %u has size %s but scatter_indices dimension %u has %s (StableHLO C4)",
                           d, dim_str(up->dims[d], up->bounds[d]).s, si, dim_str(idx->dims[si], idx->bounds[si]).s);
            si++;
        }
    }
    const ir_block *b = &op->regions[0];
    if (b->n_args != 2 * n)
        return BAD("update_computation takes %u arguments, expected %u scalars (StableHLO C23)",
                   b->n_args, 2 * n);
    plumb_dtype *e = plumb_calloc(2 * (size_t)n, sizeof *e);
    if (!e)
        return op_fail(V, op, PLUMB_ERR_NOMEM, "out of memory");
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        plumb_dtype ei = b->args[i]->type.dtype;
        if ((unsigned)ei >= PLUMB_DTYPE_COUNT || !promotable(op->operands[i]->type.dtype, ei)) {
            ok = BAD("update_computation argument %u has element type %s, which input %u's %s does not promote to (StableHLO C23)",
                     i, dt(ei), i, dt(op->operands[i]->type.dtype));
            break;
        }
        e[i] = e[n + i] = ei;
    }
    ok = ok && check_region(V, op, "update_computation", b, e, 2 * n, e, n, "C23");
    for (uint32_t i = 0; i < n && ok; i++) {
        ir_type want = op->operands[i]->type;   /* the inputs' common shape */
        for (uint32_t j = 0; j < n; j++)
            meet(&want, &op->operands[j]->type);
        want.dtype = e[i];
        ok = expect_result(V, op, i, &want, "C24, C25");
    }
    plumb_free(e, 2 * (size_t)n * sizeof *e);
    return ok;
}

static bool v_sort(vctx *V, const ir_op *op)
{
    uint32_t n = op->n_operands;
    if (n == 0)
        return BAD("needs at least one input (StableHLO C1)");
    if (op->n_results != n)
        return BAD("has %u results for %u inputs (StableHLO C2)", op->n_results, n);
    if (op->n_regions != 1)
        return BAD("needs exactly one comparator region, has %u", op->n_regions);
    for (uint32_t i = 1; i < n; i++)
        if (!same_shape(V, op, i, 0, "C3"))
            return false;
    int64_t rank = op->operands[0]->type.rank;
    if (op->a.dimension < -rank || op->a.dimension >= rank)
        return BAD("dimension = %lld is outside [-%lld, %lld) for input rank %lld (StableHLO C4)",
                   (long long)op->a.dimension, (long long)rank, (long long)rank, (long long)rank);
    plumb_dtype *e = plumb_calloc(2 * (size_t)n, sizeof *e);
    if (!e)
        return op_fail(V, op, PLUMB_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        e[2 * i] = e[2 * i + 1] = op->operands[i]->type.dtype;
    plumb_dtype i1 = PLUMB_I1;
    bool ok = check_region(V, op, "comparator", &op->regions[0], e, 2 * n, &i1, 1, "C5");
    plumb_free(e, 2 * (size_t)n * sizeof *e);
    for (uint32_t i = 0; i < n && ok; i++) {
        ir_type want = op->operands[i]->type;   /* the inputs' common shape */
        for (uint32_t j = 0; j < n; j++)
            meet(&want, &op->operands[j]->type);
        ok = expect_result(V, op, i, &want, "C2");
    }
    return ok;
}

static bool v_top_k(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    if (in->rank < 1)
        return BAD("operand must have rank >= 1");
    int64_t last = in->dims[in->rank - 1];
    if (op->a.k < 0 || (last != PLUMB_DIM_DYN && op->a.k > last))
        return BAD("k = %lld is outside [0, %lld], the operand's last dimension", (long long)op->a.k,
                   (long long)last);
    if (last == PLUMB_DIM_DYN && in->bounds[in->rank - 1] != PLUMB_NO_BOUND && op->a.k > in->bounds[in->rank - 1])
        return BAD("k = %lld is above the bound %lld of the operand's last dimension, so no operand size admits it",
                   (long long)op->a.k, (long long)in->bounds[in->rank - 1]);
    ir_type want = *in;
    want.dims[in->rank - 1] = op->a.k;
    want.bounds[in->rank - 1] = PLUMB_NO_BOUND;
    if (!expect_result(V, op, 0, &want, "top_k: values have the operand's shape with k as the last dimension"))
        return false;
    want.dtype = PLUMB_I32;
    return expect_result(V, op, 1, &want, "top_k: indices are i32 with the values' shape");
}

static bool v_rng(vctx *V, const ir_op *op)
{
    const ir_type *st = &op->operands[0]->type;
    char ts[TSTR];
    type_str(st, ts, sizeof ts);
    const char *alg = op->a.rng_alg == IR_RNG_THREE_FRY ? "THREE_FRY"
                    : op->a.rng_alg == IR_RNG_PHILOX ? "PHILOX" : "DEFAULT";
    if ((unsigned)op->a.rng_alg > IR_RNG_PHILOX)
        return BAD("unknown rng_algorithm %u", (unsigned)op->a.rng_alg);
    bool ok = st->dtype == PLUMB_UI64 && st->rank == 1;
    int64_t n = ok ? st->dims[0] : -2;
    if (ok && op->a.rng_alg == IR_RNG_THREE_FRY)
        ok = n == 2;
    else if (ok)
        ok = n == 2 || n == 3;
    if (!ok)
        return BAD("initial_state has type %s; %s needs tensor<%sxui64> (StableHLO C2)", ts, alg,
                   op->a.rng_alg == IR_RNG_THREE_FRY ? "2" : "2xui64> or tensor<3");
    if (!expect_result(V, op, 0, st, "C1"))
        return false;
    /* A float output holds the bits the unsigned integer output of its
     * width would hold (docs/spec/rng.md). */
    plumb_dtype eo = op->results[1]->type.dtype;
    if (!plumb_dtype_is_int(eo) && !plumb_dtype_is_float(eo))
        return BAD("output element type %s must be an integer or floating-point type (StableHLO: output)", dt(eo));
    if (!ir_type_is_static(&op->results[1]->type))
        return BAD("output shape must be static");
    return true;
}

/* if and case: the operand is a 0-d pred (if, tensor<i1>; C1) or index
 * (case, tensor<i32>; C1 of the spec's case is "0 < size(branches)"); each
 * branch takes no arguments (if C1, case C2) and returns values of the
 * results' types (if C2-C3, case C3-C4). */
static bool v_branches(vctx *V, const ir_op *op)
{
    bool is_if = op->code == PLUMB_OP_IF;
    const ir_type *t = &op->operands[0]->type;
    plumb_dtype want = is_if ? PLUMB_I1 : PLUMB_I32;
    char ts[TSTR], ws_[TSTR];
    if (t->rank != 0 || t->dtype != want) {
        type_str(t, ts, sizeof ts);
        return BAD("%s has type %s, expected tensor<%s>", is_if ? "pred" : "index", ts, dt(want));
    }
    if (is_if ? op->n_regions != 2 : op->n_regions < 1)
        return BAD(is_if ? "needs two branches, has %u" : "needs at least one branch, has %u (StableHLO C1)",
                   op->n_regions);
    const char *c_args = is_if ? "C1" : "C2", *c_ret = is_if ? "C2" : "C3", *c_res = is_if ? "C3" : "C4";
    for (uint32_t r = 0; r < op->n_regions; r++) {
        const ir_block *b = &op->regions[r];
        if (b->n_args)
            return BAD("branch %u takes %u arguments; branches take none (StableHLO %s)", r, b->n_args, c_args);
        const ir_op *ret = b->last;
        if (!ret || ret->code != PLUMB_OP_RETURN)
            return BAD("branch %u must end in stablehlo.return", r);
        if (ret->n_operands != op->n_results)
            return BAD("branch %u returns %u values, the op has %u results (StableHLO %s)", r, ret->n_operands,
                       (unsigned)op->n_results, c_res);
        for (uint32_t i = 0; i < ret->n_operands; i++) {
            const ir_type *first = &op->regions[0].last->operands[i]->type;
            if (!ir_type_equal(&ret->operands[i]->type, first)) {
                type_str(&ret->operands[i]->type, ts, sizeof ts);
                type_str(first, ws_, sizeof ws_);
                return BAD("branch %u returns %s as value %u, branch 0 returns %s (StableHLO %s)", r, ts, i, ws_, c_ret);
            }
        }
    }
    for (uint32_t i = 0; i < op->n_results; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s: the results have the branches' types", c_res);
        if (!expect_result(V, op, i, &op->regions[0].last->operands[i]->type, what))
            return false;
    }
    return true;
}

/* while: cond takes the iteration values and returns tensor<i1> (C1), body
 * takes and returns them (C2), and the results have the operands' types
 * (C3), compared as compatible types, as StableHLO does: equal when all
 * are static; a `?` argument meets the operand's actual size at run time,
 * where ir_shape_infer runs this rule again with the operands' concrete
 * types while the regions keep their declared `?` (a loop carrying a `?`
 * batch; with equality every such loop failed its run-time check). */
static bool v_while(vctx *V, const ir_op *op)
{
    if (op->n_regions != 2)
        return BAD("needs two regions, cond and body, has %u", op->n_regions);
    if (op->n_results != op->n_operands)
        return BAD("%u operands but %u results (StableHLO C3)", (unsigned)op->n_operands, (unsigned)op->n_results);
    static const char *const rname[2] = {"cond", "body"};
    char ts[TSTR], ws_[TSTR], nb[160];
    for (uint32_t r = 0; r < 2; r++) {
        const ir_block *b = &op->regions[r];
        const char *cid = r == 0 ? "C1" : "C2";
        if (b->n_args != op->n_operands)
            return BAD("%s takes %u arguments, expected %u, one per operand (StableHLO %s)", rname[r], b->n_args,
                       (unsigned)op->n_operands, cid);
        for (uint32_t i = 0; i < b->n_args; i++)
            if (!type_compat(&b->args[i]->type, &op->operands[i]->type)) {
                type_str(&b->args[i]->type, ts, sizeof ts);
                type_str(&op->operands[i]->type, ws_, sizeof ws_);
                return BAD("%s argument %u%s has type %s, but operand %u has type %s (StableHLO %s)", rname[r], i,
                           vname(b->args[i], nb, sizeof nb), ts, i, ws_, cid);
            }
        const ir_op *ret = b->last;
        if (!ret || ret->code != PLUMB_OP_RETURN)
            return BAD("%s must end in stablehlo.return", rname[r]);
        if (r == 0) {
            const ir_type *t = ret->n_operands == 1 ? &ret->operands[0]->type : NULL;
            if (!t || t->rank != 0 || t->dtype != PLUMB_I1) {
                if (t)
                    type_str(t, ts, sizeof ts);
                return BAD("cond returns %s, expected one tensor<i1> (StableHLO C1)",
                           t ? ts : ret->n_operands ? "several values" : "nothing");
            }
            continue;
        }
        if (ret->n_operands != op->n_operands)
            return BAD("body returns %u values, expected %u, one per operand (StableHLO C2)", ret->n_operands,
                       (unsigned)op->n_operands);
        for (uint32_t i = 0; i < ret->n_operands; i++)
            if (!type_compat(&ret->operands[i]->type, &op->operands[i]->type)) {
                type_str(&ret->operands[i]->type, ts, sizeof ts);
                type_str(&op->operands[i]->type, ws_, sizeof ws_);
                return BAD("body returns %s as value %u, but operand %u has type %s (StableHLO C2)", ts, i, i, ws_);
            }
    }
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!expect_result(V, op, i, &op->operands[i]->type, "C3: type(results...) = type(operand...)"))
            return false;
    return true;
}

/* chlo.scan (docs/spec/control.md, rules S1-S6): N inputs then M inits
 * (M = attrs.n_inits), K outputs then M carries. S1: M <= operands, M <=
 * results, N + K > 0. S2: 0 <= dimension < rank of every input and every
 * input has one size L along it. S3: one body of N + M arguments: input i's
 * type without the scan dimension, then init j's type. S4: the body returns
 * K + M values, the last M of init j's type. S5: output i is body value i
 * with L inserted at `dimension`. S6: carry j has init j's type. Types are
 * compared as compatible (a `?` meets a size), as while's are. */
static void drop_dim(ir_type *t, uint32_t d)
{
    for (uint32_t i = d; i + 1 < t->rank; i++) {
        t->dims[i] = t->dims[i + 1];
        t->bounds[i] = t->bounds[i + 1];
    }
    t->rank--;
    t->dims[t->rank] = 0;
    t->bounds[t->rank] = PLUMB_NO_BOUND;
}

static bool v_scan(vctx *V, const ir_op *op)
{
    uint32_t m = op->a.n_inits;
    if (m > op->n_operands || m > op->n_results)
        return BAD("has %u inits but %u operands and %u results; each init needs an operand and a final carry (S1)", m,
                   op->n_operands, op->n_results);
    uint32_t n = op->n_operands - m, k = op->n_results - m;
    if (n + k == 0)
        return BAD("needs at least one input or one output: nothing gives the length of the scan (S1)");
    if (op->n_regions != 1)
        return BAD("needs exactly one body region, has %u", op->n_regions);
    int64_t dim = op->a.dimension;
    char ts[TSTR], ws_[TSTR], nb[160];
    int64_t len = PLUMB_DIM_DYN;
    for (uint32_t i = 0; i < n; i++) {
        const ir_type *t = &op->operands[i]->type;
        if (dim < 0 || (uint64_t)dim >= t->rank)
            return BAD("dimension %lld is out of range for input %u%s of rank %u (S2: 0 <= dimension < rank)",
                       (long long)dim, i, vname(op->operands[i], nb, sizeof nb), t->rank);
        int64_t l = t->dims[dim];
        if (len != PLUMB_DIM_DYN && l != PLUMB_DIM_DYN && l != len)
            return BAD("input %u%s has size %lld along dimension %lld, input 0 has %lld (S2: one scan length)", i,
                       vname(op->operands[i], nb, sizeof nb), (long long)l, (long long)dim, (long long)len);
        if (len == PLUMB_DIM_DYN)
            len = l;
    }
    const ir_block *b = &op->regions[0];
    if (b->n_args != n + m)
        return BAD("body takes %u arguments, expected %u: one per input then one per init (S3)", b->n_args, n + m);
    for (uint32_t i = 0; i < n + m; i++) {
        ir_type want = op->operands[i]->type;
        if (i < n)
            drop_dim(&want, (uint32_t)dim);
        if (!type_compat(&b->args[i]->type, &want)) {
            type_str(&b->args[i]->type, ts, sizeof ts);
            type_str(&want, ws_, sizeof ws_);
            return BAD("body argument %u%s has type %s, expected %s (S3: %s)", i, vname(b->args[i], nb, sizeof nb), ts,
                       ws_, i < n ? "the input's type without the scan dimension" : "the init's type");
        }
    }
    const ir_op *ret = b->last;
    if (!ret || ret->code != PLUMB_OP_RETURN)
        return BAD("body must end in stablehlo.return");
    if (ret->n_operands != k + m)
        return BAD("body returns %u values, expected %u: one per output then one per carry (S4)", ret->n_operands, k + m);
    for (uint32_t j = 0; j < m; j++) {
        const ir_type *got = &ret->operands[k + j]->type, *want = &op->operands[n + j]->type;
        if (!type_compat(got, want)) {
            type_str(got, ts, sizeof ts);
            type_str(want, ws_, sizeof ws_);
            return BAD("body returns %s as carry %u, but init %u has type %s (S4)", ts, j, j, ws_);
        }
    }
    for (uint32_t i = 0; i < k; i++) {
        const ir_type *bt = &ret->operands[i]->type;
        if (bt->tuple || dim < 0 || (uint64_t)dim > bt->rank || bt->rank + 1 > PLUMB_MAX_RANK)
            return BAD("body output %u of rank %u cannot take the scan dimension at %lld (S5)", i, bt->tuple ? 0 : bt->rank,
                       (long long)dim);
        if (i == 0 && n == 0)
            len = op->results[0]->type.rank > (uint64_t)dim ? op->results[0]->type.dims[dim] : PLUMB_DIM_DYN;
        ir_type want = *bt;
        for (uint32_t d = want.rank; d > (uint32_t)dim; d--) {
            want.dims[d] = want.dims[d - 1];
            want.bounds[d] = want.bounds[d - 1];
        }
        want.dims[dim] = len;
        want.bounds[dim] = PLUMB_NO_BOUND;
        want.rank++;
        if (!expect_result(V, op, i, &want, "scan S5: output = body output stacked along dimension"))
            return false;
    }
    for (uint32_t j = 0; j < m; j++)
        if (!expect_result(V, op, k + j, &op->operands[n + j]->type, "scan S6: carry = init's type"))
            return false;
    return true;
}

/* map (docs/spec/control.md): N >= 1 inputs of one shape, the result of
 * that shape (C1, C2); dimensions is every dimension in order (C3); the
 * computation takes one scalar per input of the input's element type and
 * returns one scalar of the result's element type (C4). */
static bool v_map(vctx *V, const ir_op *op)
{
    if (op->n_operands == 0)
        return BAD("takes at least one input (StableHLO C2: 0 < size(inputs))");
    if (op->n_regions != 1)
        return BAD("needs exactly one computation region, has %u", op->n_regions);
    const ir_type *t0 = &op->operands[0]->type;
    for (uint32_t i = 1; i < op->n_operands; i++)
        if (!same_shape(V, op, i, 0, "C1"))
            return false;
    const ir_ints *d = &op->a.dims;
    if (d->n != t0->rank)
        return BAD("dimensions has %u entries, expected %u: every dimension of the inputs, in order "
                   "(StableHLO C3: dimensions = range(rank(inputs[0])))", d->n, t0->rank);
    for (uint32_t i = 0; i < d->n; i++)
        if (d->v[i] != (int64_t)i)
            return BAD("dimensions[%u] = %lld, expected %u (StableHLO C3: dimensions = range(rank(inputs[0])))", i,
                       (long long)d->v[i], i);
    plumb_dtype *e = plumb_calloc(op->n_operands, sizeof *e);
    if (!e)
        return op_fail(V, op, PLUMB_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < op->n_operands; i++)
        e[i] = op->operands[i]->type.dtype;
    plumb_dtype r = op->results[0]->type.dtype;
    bool ok = check_region(V, op, "computation", &op->regions[0], e, op->n_operands, &r, 1, "C4");
    plumb_free(e, op->n_operands * sizeof *e);
    if (!ok)
        return false;
    ir_type want = *t0;   /* the inputs' common shape */
    for (uint32_t i = 1; i < op->n_operands; i++)
        meet(&want, &op->operands[i]->type);
    want.dtype = r;
    return expect_result(V, op, 0, &want, "C1: shape(inputs...) = shape(result)");
}

/* optimization_barrier is the identity: as many results as operands, each
 * of its operand's type (StableHLO C1). */
static bool v_optimization_barrier(vctx *V, const ir_op *op)
{
    if (op->n_results != op->n_operands)
        return BAD("%u operands but %u results; each operand passes through to one result (StableHLO C1)",
                   (unsigned)op->n_operands, (unsigned)op->n_results);
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!expect_result(V, op, i, &op->operands[i]->type, "C1: type(operand...) = type(result...)"))
            return false;
    return true;
}

/* tuple (StableHLO C1): type(result) = tuple(type(val...)).
 * get_tuple_element (C1): 0 <= index < size(operand); (C2) type(result) =
 * tuple_element_types(operand)[index]. docs/spec/tuple.md. */
static bool v_tuple(vctx *V, const ir_op *op)
{
    const ir_type *r = &op->results[0]->type;
    char g[TSTR], w[TSTR], od[200];
    if (!r->tuple) {
        type_str(r, g, sizeof g);
        return BAD("result type %s is not a tuple type (StableHLO C1: type(result) = tuple(type(val...)))", g);
    }
    if (r->tuple->n != op->n_operands)
        return BAD("result type has %u elements but the op has %u operands (StableHLO C1)", r->tuple->n,
                   op->n_operands);
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!ir_type_equal(&op->operands[i]->type, &r->tuple->elems[i])) {
            type_str(&op->operands[i]->type, g, sizeof g);
            type_str(&r->tuple->elems[i], w, sizeof w);
            return BAD("%s has type %s but result element %u has type %s (StableHLO C1)",
                       odesc(op, i, od, sizeof od), g, i, w);
        }
    return true;
}

static bool v_get_tuple_element(vctx *V, const ir_op *op)
{
    const ir_type *t = &op->operands[0]->type;
    char g[TSTR], w[TSTR], od[200];
    if (!t->tuple) {
        type_str(t, g, sizeof g);
        return BAD("%s has type %s, not a tuple type", odesc(op, 0, od, sizeof od), g);
    }
    int64_t idx = op->a.tuple_index;
    if (idx < 0 || idx >= (int64_t)t->tuple->n)
        return BAD("index %lld is out of range for %s of %u elements (StableHLO C1: 0 <= index < size(operand))",
                   (long long)idx, odesc(op, 0, od, sizeof od), t->tuple->n);
    if (!ir_type_equal(&op->results[0]->type, &t->tuple->elems[idx])) {
        type_str(&op->results[0]->type, g, sizeof g);
        type_str(&t->tuple->elems[idx], w, sizeof w);
        return BAD("result type %s is not element %lld's type %s (StableHLO C2)", g, (long long)idx, w);
    }
    return true;
}

/* Ops that carry tuple-typed values as they are (docs/spec/tuple.md);
 * every other op takes and gives tensors only. */
static bool carries_tuples(plumb_opcode c)
{
    return c == PLUMB_OP_TUPLE || c == PLUMB_OP_GET_TUPLE_ELEMENT || c == PLUMB_OP_WHILE || c == PLUMB_OP_IF ||
           c == PLUMB_OP_CASE || c == PLUMB_OP_OPTIMIZATION_BARRIER || c == PLUMB_OP_CALL ||
           c == PLUMB_OP_COMPOSITE || c == PLUMB_OP_FUNC_RETURN || c == PLUMB_OP_RETURN;
}

/* triangular_solve and cholesky (docs/spec/linalg.md): float element types
 * plumb computes in (f16, bf16, f32, f64, the FP8/FP6/FP4/E8M0 formats,
 * complex<f32>, complex<f64>: docs/spec/linalg.md); the matrices are the last two
 * dimensions, the leading ones are batch dimensions. `?` sizes are checked
 * when the types fix them. */
static bool linalg_float(vctx *V, const ir_op *op, const ir_type *t, const char *what)
{
    if (t->dtype != PLUMB_F16 && t->dtype != PLUMB_BF16 && t->dtype != PLUMB_F32 && t->dtype != PLUMB_F64 &&
        !ir_lowp_accepts(op->code, t->dtype) && t->dtype != PLUMB_C64 && t->dtype != PLUMB_C128)
        return op_fail(V, op, PLUMB_ERR_UNSUPPORTED, "%s: element type %s is not supported (a float or complex type)",
                       what, dt(t->dtype));
    return true;
}

static bool v_triangular_solve(vctx *V, const ir_op *op)
{
    const ir_type *a = &op->operands[0]->type, *b = &op->operands[1]->type;
    if (a->dtype != b->dtype)
        return BAD("a has element type %s but b has %s (StableHLO C1: baseline_element_type(a) = baseline_element_type(b))",
                   dt(a->dtype), dt(b->dtype));
    if (!linalg_float(V, op, a, "a"))
        return false;
    if (a->rank < 2 || a->rank != b->rank)
        return BAD("a has rank %u and b rank %u (StableHLO C2: 2 <= rank(a) = rank(b))", a->rank, b->rank);
    uint32_t R = a->rank;
    for (uint32_t i = 0; i + 2 < R; i++)
        if (!dim_compat(a->dims[i], b->dims[i]))
            return BAD("batch dimension %u is %lld in a but %lld in b (StableHLO C3: shape(a)[:-2] = shape(b)[:-2])", i,
                       (long long)a->dims[i], (long long)b->dims[i]);
    if (!dim_compat(a->dims[R - 2], a->dims[R - 1]))
        return BAD("a's matrices are %lldx%lld, not square (StableHLO C4: dim(a, -2) = dim(a, -1))",
                   (long long)a->dims[R - 2], (long long)a->dims[R - 1]);
    uint32_t bd = op->a.left_side ? R - 2 : R - 1;
    if (!dim_compat(a->dims[R - 1], b->dims[bd]))
        return BAD("b's dimension %u is %lld but a is %lldx%lld (StableHLO C4: dim(a, -1) = dim(b, %s) when left_side = %s)",
                   bd, (long long)b->dims[bd], (long long)a->dims[R - 2], (long long)a->dims[R - 1],
                   op->a.left_side ? "-2" : "-1", op->a.left_side ? "true" : "false");
    return expect_result(V, op, 0, b, "C5: type(result) = type(b)");
}

static bool v_cholesky(vctx *V, const ir_op *op)
{
    const ir_type *a = &op->operands[0]->type;
    if (!linalg_float(V, op, a, "a"))
        return false;
    if (a->rank < 2)
        return BAD("a has rank %u (StableHLO C2: 2 <= rank(a))", a->rank);
    if (!dim_compat(a->dims[a->rank - 2], a->dims[a->rank - 1]))
        return BAD("a's matrices are %lldx%lld, not square (StableHLO C3: dim(a, -2) = dim(a, -1))",
                   (long long)a->dims[a->rank - 2], (long long)a->dims[a->rank - 1]);
    return expect_result(V, op, 0, a, "C1: type(result) = type(a)");
}

/* batch_norm_inference, _training and _grad (docs/spec/batchnorm.md): the
 * operand-shaped values and the per-feature vectors; the spec's
 * constraint ids differ per op, so each check names its op's. */
static bool bn_vec(vctx *V, const ir_op *op, const ir_type *t, const ir_type *x, const char *what, const char *cid)
{
    if (t->dtype != x->dtype)
        return BAD("%s has element type %s but operand has %s (StableHLO C2: same element type)", what, dt(t->dtype),
                   dt(x->dtype));
    int64_t fd = x->dims[op->a.feature_index];
    if (t->rank != 1)
        return BAD("%s must be a 1-dimensional tensor of dim(operand, feature_index) = %lld elements, has rank %u (StableHLO %s)",
                   what, (long long)fd, t->rank, cid);
    if (!dim_compat(t->dims[0], fd))
        return BAD("%s must be a 1-dimensional tensor of dim(operand, feature_index) = %lld elements, has size %lld (StableHLO %s)",
                   what, (long long)fd, (long long)t->dims[0], cid);
    return true;
}

static bool v_batch_norm(vctx *V, const ir_op *op)
{
    const ir_type *x = &op->operands[0]->type;
    bool grad = op->code == PLUMB_OP_BATCH_NORM_GRAD, inf = op->code == PLUMB_OP_BATCH_NORM_INFERENCE;
    if (!linalg_float(V, op, x, "operand"))
        return false;
    if (op->a.feature_index < 0 || (uint64_t)op->a.feature_index >= x->rank)
        return BAD("feature_index %lld is outside the operand's rank %u (StableHLO C1: 0 <= feature_index < rank(operand))",
                   (long long)op->a.feature_index, x->rank);
    if (!(op->a.epsilon == op->a.epsilon))
        return BAD("epsilon is NaN");
    if (grad) {
        static const char *const nm[] = {"operand", "scale", "mean", "variance", "grad_output"};
        for (uint32_t i = 1; i < 4; i++)
            if (!bn_vec(V, op, &op->operands[i]->type, x, nm[i], i == 1 ? "C2, C4, C5" : "C2, C4"))
                return false;
        const ir_type *g = &op->operands[4]->type;
        if (g->dtype != x->dtype)
            return BAD("grad_output has element type %s but operand has %s (StableHLO C2: same element type)",
                       dt(g->dtype), dt(x->dtype));
        if (!same_shape(V, op, 4, 0, "C3: shape(grad_output) = shape(operand)"))
            return false;
        if (!expect_result(V, op, 0, x, "C3: shape(grad_operand) = shape(operand)"))
            return false;
        if (!bn_vec(V, op, &op->results[1]->type, x, "grad_scale", "C2, C4") ||
            !bn_vec(V, op, &op->results[2]->type, x, "grad_offset", "C2, C4"))
            return false;
        return true;
    }
    static const char *const nm[] = {"operand", "scale", "offset", "mean", "variance"};
    static const char *const cid[] = {"", "C3", "C4", "C5", "C6"};
    for (uint32_t i = 1; i < op->n_operands; i++)
        if (!bn_vec(V, op, &op->operands[i]->type, x, nm[i], inf ? cid[i] : i == 1 ? "C3" : "C4"))
            return false;
    if (!expect_result(V, op, 0, x, inf ? "C7: type(result) = type(operand)" : "C7: type(output) = type(operand)"))
        return false;
    if (!inf && (!bn_vec(V, op, &op->results[1]->type, x, "batch_mean", "C5") ||
                 !bn_vec(V, op, &op->results[2]->type, x, "batch_var", "C6")))
        return false;
    return true;
}

static bool v_call(vctx *V, const ir_op *op)
{
    if (!op->a.callee)
        return BAD("has no callee");
    if (!V->m)
        return true;
    const ir_func *f = ir_module_find_func(V->m, op->a.callee);
    if (!f)
        return BAD("calls @%s, which is not a function of this module", op->a.callee);
    if (op->n_operands != f->body.n_args)
        return BAD("passes %u arguments to @%s, which takes %u", op->n_operands, f->name, f->body.n_args);
    if (op->n_results != f->n_results)
        return BAD("expects %u results from @%s, which returns %u", op->n_results, f->name, f->n_results);
    char a[TSTR], b[TSTR], od[200];
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!ir_type_equal(&op->operands[i]->type, &f->body.args[i]->type)) {
            type_str(&op->operands[i]->type, a, sizeof a);
            type_str(&f->body.args[i]->type, b, sizeof b);
            return BAD("%s has type %s but @%s's parameter %u has type %s", odesc(op, i, od, sizeof od),
                       a, f->name, i, b);
        }
    for (uint32_t i = 0; i < op->n_results; i++)
        if (!ir_type_equal(&op->results[i]->type, &f->result_types[i])) {
            type_str(&op->results[i]->type, a, sizeof a);
            type_str(&f->result_types[i], b, sizeof b);
            return BAD("result %u has type %s but @%s's result %u has type %s", i, a, f->name, i, b);
        }
    return true;
}

/* composite (docs/spec/control.md): name is a namespaced op name (C1),
 * composite_attributes a dictionary (C2), decomposition names a function
 * of the module (C3) whose signature is the composite's: its parameters
 * the operands' types, its results the results' (StableHLO's verifier). */
static bool v_composite(vctx *V, const ir_op *op)
{
    const ir_named_attr *nm = NULL, *ca = NULL;
    for (uint32_t i = 0; i < op->a.n_extra; i++) {
        if (strcmp(op->a.extra[i].name, "name") == 0)
            nm = &op->a.extra[i];
        else if (strcmp(op->a.extra[i].name, "composite_attributes") == 0)
            ca = &op->a.extra[i];
    }
    if (!nm)
        return BAD("needs a name, a string such as \"mylib.op\" (StableHLO C1)");
    const char *t = nm->text;
    size_t n = t ? strlen(t) : 0;
    const char *dot = n >= 2 ? memchr(t + 1, '.', n - 2) : NULL;
    if (n < 2 || t[0] != '"' || t[n - 1] != '"' || !dot || dot == t + 1 || dot + 2 == t + n)
        return BAD("name %s is not a namespaced op name such as \"mylib.op\" (StableHLO C1)", t ? t : "(none)");
    if (ca && (!ca->text || ca->text[0] != '{'))
        return BAD("composite_attributes = %s is not a dictionary {...} (StableHLO C2)", ca->text ? ca->text : "");
    if (!op->a.callee)
        return BAD("needs a decomposition = @function (StableHLO C3)");
    if (!V->m)
        return true;
    const ir_func *f = ir_module_find_func(V->m, op->a.callee);
    if (!f)
        return BAD("decomposition @%s is not a function of this module (StableHLO C3)", op->a.callee);
    if (op->n_operands != f->body.n_args)
        return BAD("has %u operands but its decomposition @%s takes %u", op->n_operands, f->name, f->body.n_args);
    if (op->n_results != f->n_results)
        return BAD("has %u results but its decomposition @%s returns %u", op->n_results, f->name, f->n_results);
    char a[TSTR], b[TSTR], od[200];
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!ir_type_equal(&op->operands[i]->type, &f->body.args[i]->type)) {
            type_str(&op->operands[i]->type, a, sizeof a);
            type_str(&f->body.args[i]->type, b, sizeof b);
            return BAD("%s has type %s but the decomposition @%s's parameter %u has type %s",
                       odesc(op, i, od, sizeof od), a, f->name, i, b);
        }
    for (uint32_t i = 0; i < op->n_results; i++)
        if (!ir_type_equal(&op->results[i]->type, &f->result_types[i])) {
            type_str(&op->results[i]->type, a, sizeof a);
            type_str(&f->result_types[i], b, sizeof b);
            return BAD("result %u has type %s but the decomposition @%s's result %u has type %s", i, a, f->name, i,
                       b);
        }
    return true;
}

static bool v_check(vctx *V, const ir_op *op)
{
    const ir_type *t = &op->operands[0]->type;
    char ts[TSTR], vs[TSTR];
    type_str(t, ts, sizeof ts);
    if (op->code == PLUMB_OP_EXPECT_CLOSE || op->code == PLUMB_OP_EXPECT_CLOSE_CONST) {
        /* ui64 bounds (ir/parse.c parse_ulp) */
        if ((uint64_t)op->a.min_ulp > (uint64_t)op->a.max_ulp)
            return BAD("needs 0 <= min_ulp_difference (%llu) <= max_ulp_difference (%llu)",
                       (unsigned long long)(uint64_t)op->a.min_ulp, (unsigned long long)(uint64_t)op->a.max_ulp);
    }
    if (op->code == PLUMB_OP_EXPECT_ALMOST_EQ || op->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST) {
        if (!(op->a.tolerance >= 0))
            return BAD("tolerance %g must be a non-negative number", op->a.tolerance);
    }
    if (op->n_operands == 2) {
        if (!same_elem(V, op, 1, 0, "check: both operands have one type") ||
            !same_shape(V, op, 1, 0, "check: both operands have one type"))
            return false;
        return true;
    }
    const plumb_tensor *v = op->a.value;
    if (!v)
        return BAD("has no expected value");
    bool ok = v->dtype == t->dtype && v->rank == t->rank;
    for (uint32_t i = 0; ok && i < t->rank; i++)
        ok = dim_compat(v->dims[i], t->dims[i]);
    if (!ok) {
        ir_type vt = blank_type(v->dtype, v->rank <= PLUMB_MAX_RANK ? v->rank : PLUMB_MAX_RANK);
        for (uint32_t i = 0; i < vt.rank; i++)
            vt.dims[i] = v->dims[i];
        type_str(&vt, vs, sizeof vs);
        return BAD("expected value of type %s does not match operand 0's type %s", vs, ts);
    }
    return true;
}

/* ---- shape polymorphism ------------------------------------------------------
 * The dynamic ops take their result sizes from the values of 1-D integer
 * "shape operands". Their lengths fix the result's rank and are checked
 * here; their values are known only at run time (ir_shape_infer checks
 * them there), except when a stablehlo.constant defines the operand: then
 * the values are checked here too, so that a program whose shape is wrong
 * for every input is rejected before it runs. */

/* Operand i is a shape operand: a 1-D integer tensor; when want_len >= 0 its
 * length (if static) must be want_len. */
static bool shape_operand(vctx *V, const ir_op *op, uint32_t i, const char *name, int64_t want_len,
                          const char *want_what, const char *constraint)
{
    const ir_type *t = &op->operands[i]->type;
    char od[200], ts[TSTR];
    if (t->rank != 1 || !plumb_dtype_is_int(t->dtype)) {
        type_str(t, ts, sizeof ts);
        return BAD("%s: %s has type %s, expected a 1-dimensional integer tensor", odesc(op, i, od, sizeof od), name, ts);
    }
    if (want_len >= 0 && t->dims[0] != PLUMB_DIM_DYN && t->dims[0] != want_len)
        return BAD("%s: %s has %lld entries, expected %lld (%s) (StableHLO %s)", odesc(op, i, od, sizeof od), name,
                   (long long)t->dims[0], (long long)want_len, want_what, constraint);
    return true;
}

/* The values of shape operand i when a stablehlo.constant defines it: true
 * with v[0..*n) filled, false when the operand is not a constant (nothing
 * to check before run time) or an error was set (*err). A value that does
 * not fit in int64_t (a ui64 above 2^63 - 1) is an error. */
static bool const_shape(vctx *V, const ir_op *op, uint32_t i, const char *name, int64_t *v, uint32_t cap,
                        uint32_t *n, bool *err)
{
    const ir_value *val = op->operands[i];
    *err = false;
    if (!val->def || val->def->code != PLUMB_OP_CONSTANT || !val->def->a.value)
        return false;
    const plumb_tensor *t = val->def->a.value;
    if (t->rank != 1 || !plumb_dtype_is_int(t->dtype) || t->dims[0] < 0 || (uint64_t)t->dims[0] > cap)
        return false;   /* the type rules report it */
    *n = (uint32_t)t->dims[0];
    for (uint32_t k = 0; k < *n; k++) {
        v[k] = plumb_load_i64(t->dtype, t->data, k);
        if (t->dtype == PLUMB_UI64 && v[k] < 0) {
            char od[200];
            *err = true;
            return BAD("%s: %s[%u] = %llu does not fit in a signed 64-bit size", odesc(op, i, od, sizeof od), name, k,
                       (unsigned long long)(uint64_t)v[k]);
        }
    }
    return true;
}

/* A result dimension computed from constant shape operands (size) against
 * the declared one: equal when static, within the bound when '?'. */
static bool const_dim_fits(vctx *V, const ir_op *op, uint32_t d, int64_t size, const char *from,
                           const char *constraint)
{
    const ir_type *r = &op->results[0]->type;
    if (size < 0)
        return BAD("result dimension %u: %s gives the negative size %lld (StableHLO %s)", d, from, (long long)size,
                   constraint);
    if (r->dims[d] != PLUMB_DIM_DYN && r->dims[d] != size)
        return BAD("result dimension %u is declared %lld but %s gives %lld (StableHLO %s)", d, (long long)r->dims[d],
                   from, (long long)size, constraint);
    if (r->dims[d] == PLUMB_DIM_DYN && r->bounds[d] != PLUMB_NO_BOUND && size > r->bounds[d])
        return BAD("result dimension %u: %s gives %lld, above the declared bound %lld (StableHLO %s)", d, from,
                   (long long)size, (long long)r->bounds[d], constraint);
    return true;
}

static bool v_get_dimension_size(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *r = &op->results[0]->type;
    if (op->a.dimension < 0 || op->a.dimension >= (int64_t)in->rank)
        return BAD("dimension = %lld is out of range for operand rank %u (StableHLO C1)", (long long)op->a.dimension,
                   in->rank);
    if (r->rank != 0 || r->dtype != PLUMB_I32) {
        char ts[TSTR];
        type_str(r, ts, sizeof ts);
        return BAD("result has type %s, expected tensor<i32>", ts);
    }
    return true;
}

static bool v_dynamic_broadcast(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *out = &op->results[0]->type;
    const ir_attrs *a = &op->a;
    const ir_ints *bd = &a->dims;
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO C1)", dt(out->dtype),
                   dt(in->dtype));
    if (bd->n != in->rank)
        return BAD("broadcast_dimensions has %u entries but the operand has rank %u (StableHLO C2)", bd->n, in->rank);
    if (!dims_in_range(V, op, "broadcast_dimensions", bd, out->rank, "result", "C3") ||
        !dims_unique(V, op, "broadcast_dimensions", bd, "C4"))
        return false;
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t x = in->dims[d], y = out->dims[bd->v[d]];
        if (x != 1 && !dim_compat_b(x, in->bounds[d], y, out->bounds[bd->v[d]]))
            return BAD("operand dimension %u has size %s, which is neither 1 nor result dimension %lld's size %s (StableHLO C5)",
                       d, dim_str(x, in->bounds[d]).s, (long long)bd->v[d], dim_str(y, out->bounds[bd->v[d]]).s);
    }
    if (!shape_operand(V, op, 1, "output_dimensions", out->rank, "the result's rank", "C7"))
        return false;
    if (!dims_in_range(V, op, "known_expanding_dimensions", &a->known_expanding, in->rank, "operand", "C9") ||
        !dims_in_range(V, op, "known_nonexpanding_dimensions", &a->known_nonexpanding, in->rank, "operand", "C10") ||
        !dims_unique(V, op, "known_expanding_dimensions", &a->known_expanding, "C8") ||
        !dims_unique(V, op, "known_nonexpanding_dimensions", &a->known_nonexpanding, "C8") ||
        !dims_disjoint(V, op, "known_expanding_dimensions", &a->known_expanding, "known_nonexpanding_dimensions",
                       &a->known_nonexpanding, "C8"))
        return false;
    /* A static operand dimension other than 1 never expands. */
    for (uint32_t i = 0; i < a->known_expanding.n; i++) {
        int64_t x = in->dims[a->known_expanding.v[i]];
        if (x != PLUMB_DIM_DYN && x != 1)
            return BAD("known_expanding_dimensions names operand dimension %lld, whose static size %lld is not 1 and so cannot expand",
                       (long long)a->known_expanding.v[i], (long long)x);
    }
    int64_t v[PLUMB_MAX_RANK];
    uint32_t n;
    bool err;
    if (const_shape(V, op, 1, "output_dimensions", v, PLUMB_MAX_RANK, &n, &err) && n == out->rank) {
        for (uint32_t d = 0; d < n; d++) {
            char from[64];
            snprintf(from, sizeof from, "output_dimensions[%u]", d);
            if (!const_dim_fits(V, op, d, v[d], from, "C7"))
                return false;
        }
        for (uint32_t d = 0; d < in->rank; d++) {
            int64_t x = in->dims[d], y = v[bd->v[d]];
            if (x != PLUMB_DIM_DYN && x != 1 && x != y)
                return BAD("operand dimension %u has size %lld, which is neither 1 nor output_dimensions[%lld] = %lld (StableHLO C5)",
                           d, (long long)x, (long long)bd->v[d], (long long)y);
        }
    }
    return !err;
}

static bool v_dynamic_reshape(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *out = &op->results[0]->type;
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO C1)", dt(out->dtype),
                   dt(in->dtype));
    if (!shape_operand(V, op, 1, "output_shape", out->rank, "the result's rank", "C4"))
        return false;
    /* C2: the element counts agree: decidable here when both are static,
     * and refutable when one side is static and no size of the other's
     * '?' dimensions gives its count. */
    if (!v_reshape(V, op))
        return false;
    int64_t v[PLUMB_MAX_RANK];
    uint32_t n;
    bool err;
    if (const_shape(V, op, 1, "output_shape", v, PLUMB_MAX_RANK, &n, &err) && n == out->rank) {
        uint64_t cnt = 1;
        bool ovf = false;
        for (uint32_t d = 0; d < n; d++) {
            char from[64];
            snprintf(from, sizeof from, "output_shape[%u]", d);
            if (!const_dim_fits(V, op, d, v[d], from, "C4"))
                return false;
            ovf |= plumb_mul_overflow_u64(cnt, (uint64_t)v[d], &cnt);
        }
        if (ovf)
            return BAD("output_shape describes more than 2^64 elements");
        if (ir_type_is_static(in)) {
            uint64_t ic = 1;
            for (uint32_t d = 0; d < in->rank; d++)
                plumb_mul_overflow_u64(ic, (uint64_t)in->dims[d], &ic);
            if (ic != cnt)
                return BAD("operand has %llu elements but output_shape describes %llu (StableHLO C2)",
                           (unsigned long long)ic, (unsigned long long)cnt);
        }
    }
    return !err;
}

static bool v_dynamic_iota(vctx *V, const ir_op *op)
{
    const ir_type *out = &op->results[0]->type;
    if (!shape_operand(V, op, 0, "output_shape", out->rank, "the result's rank", "C2"))
        return false;
    if (op->a.dimension < 0 || op->a.dimension >= (int64_t)out->rank)
        return BAD("iota_dimension = %lld is out of range for result rank %u (StableHLO C1)",
                   (long long)op->a.dimension, out->rank);
    int64_t v[PLUMB_MAX_RANK];
    uint32_t n;
    bool err;
    if (const_shape(V, op, 0, "output_shape", v, PLUMB_MAX_RANK, &n, &err) && n == out->rank)
        for (uint32_t d = 0; d < n; d++) {
            char from[64];
            snprintf(from, sizeof from, "output_shape[%u]", d);
            if (!const_dim_fits(V, op, d, v[d], from, "C2"))
                return false;
        }
    return !err;
}

/* real_dynamic_slice has no section of its own in the StableHLO spec: it is
 * slice with start, limit and strides as operands, and its rules are
 * slice's (constraint ids "slice Cn"). */
static bool v_real_dynamic_slice(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *out = &op->results[0]->type;
    static const char *const names[3] = {"start_indices", "limit_indices", "strides"};
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO slice C1)", dt(out->dtype),
                   dt(in->dtype));
    if (out->rank != in->rank)
        return BAD("result has rank %u but the operand has rank %u (StableHLO slice C5)", out->rank, in->rank);
    for (uint32_t i = 0; i < 3; i++)
        if (!shape_operand(V, op, 1 + i, names[i], in->rank, "the operand's rank", "slice C2"))
            return false;
    int64_t v[3][PLUMB_MAX_RANK];
    uint32_t n[3];
    bool known[3], err;
    for (uint32_t i = 0; i < 3; i++) {
        known[i] = const_shape(V, op, 1 + i, names[i], v[i], PLUMB_MAX_RANK, &n[i], &err) && n[i] == in->rank;
        if (err)
            return false;
    }
    for (uint32_t d = 0; d < in->rank; d++) {
        int64_t st = known[0] ? v[0][d] : 0, li = known[1] ? v[1][d] : 0, sd = known[2] ? v[2][d] : 1, sz = in->dims[d];
        if (known[2] && sd <= 0)
            return BAD("strides[%u] = %lld must be positive (StableHLO slice C4)", d, (long long)sd);
        if (known[0] && st < 0)
            return BAD("start_indices[%u] = %lld must not be negative (StableHLO slice C3)", d, (long long)st);
        if (known[0] && known[1] && st > li)
            return BAD("dimension %u: start_indices (%lld) is above limit_indices (%lld) (StableHLO slice C3)", d,
                       (long long)st, (long long)li);
        if (known[1] && sz != PLUMB_DIM_DYN && li > sz)
            return BAD("dimension %u: limit_indices (%lld) is above the operand's size %lld (StableHLO slice C3)", d,
                       (long long)li, (long long)sz);
        if (known[1] && sz == PLUMB_DIM_DYN && in->bounds[d] != PLUMB_NO_BOUND && li > in->bounds[d])
            return BAD("dimension %u: limit_indices (%lld) is above the operand's bound %lld, so no operand size admits it (StableHLO slice C3)",
                       d, (long long)li, (long long)in->bounds[d]);
        if (known[0] && known[1] && known[2]) {
            char from[96];
            snprintf(from, sizeof from, "ceil((limit_indices - start_indices) / strides) on dimension %u", d);
            if (!const_dim_fits(V, op, d, (li - st) / sd + ((li - st) % sd != 0), from, "slice C5"))
                return false;
        }
    }
    return true;
}

static bool v_dynamic_pad(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type, *pv = &op->operands[1]->type, *out = &op->results[0]->type;
    static const char *const names[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    char od[200];
    if (pv->rank != 0)
        return BAD("%s: padding_value must be 0-dimensional, has rank %u", odesc(op, 1, od, sizeof od), pv->rank);
    if (!same_elem(V, op, 1, 0, "C1"))
        return false;
    if (out->dtype != in->dtype)
        return BAD("result element type %s does not match the operand's %s (StableHLO C1)", dt(out->dtype),
                   dt(in->dtype));
    if (out->rank != in->rank)
        return BAD("result has rank %u but the operand has rank %u (StableHLO C4)", out->rank, in->rank);
    for (uint32_t i = 0; i < 3; i++)
        if (!shape_operand(V, op, 2 + i, names[i], in->rank, "the operand's rank", "C2"))
            return false;
    int64_t v[3][PLUMB_MAX_RANK];
    uint32_t n[3];
    bool known[3], err;
    for (uint32_t i = 0; i < 3; i++) {
        known[i] = const_shape(V, op, 2 + i, names[i], v[i], PLUMB_MAX_RANK, &n[i], &err) && n[i] == in->rank;
        if (err)
            return false;
    }
    for (uint32_t d = 0; d < in->rank; d++) {
        if (known[2] && v[2][d] < 0)
            return BAD("interior_padding[%u] = %lld must not be negative (StableHLO C3)", d, (long long)v[2][d]);
        int64_t sz = in->dims[d];
        if (!known[0] || !known[1] || !known[2] || sz == PLUMB_DIM_DYN)
            continue;
        /* low + size + (size - 1) * interior + high, each term bounded by
         * the operand's byte size or a 64-bit constant: summed in __int128
         * so that no overflow passes as a small size */
        __int128 r = (__int128)v[0][d] + sz + (sz > 0 ? (__int128)(sz - 1) * v[2][d] : 0) + v[1][d];
        if (r > INT64_MAX)
            return BAD("result dimension %u: the padded size overflows 64 bits", d);
        char from[64];
        snprintf(from, sizeof from, "the padding on dimension %u", d);
        if (!const_dim_fits(V, op, d, (int64_t)r, from, "C4"))
            return false;
    }
    return true;
}

static bool v_dynamic_gather(vctx *V, const ir_op *op)
{
    const ir_type *in = &op->operands[0]->type;
    if (!shape_operand(V, op, 2, "slice_sizes", in->rank, "the operand's rank", "C20"))
        return false;
    int64_t v[PLUMB_MAX_RANK];
    uint32_t n;
    bool err;
    if (const_shape(V, op, 2, "slice_sizes", v, PLUMB_MAX_RANK, &n, &err) && n == in->rank) {
        ir_ints sizes = {v, n};
        return gather_rules(V, op, &sizes);
    }
    return !err && gather_rules(V, op, NULL);
}

/* `{k}` in the message stands for operand k + 1 (JAX's convention): every
 * such reference must name an operand. */
static bool v_shape_assertion(vctx *V, const ir_op *op)
{
    char od[200], ts[TSTR];
    if (op->n_operands < 1)
        return BAD("needs a predicate operand (tensor<i1>)");
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const ir_type *t = &op->operands[i]->type;
        bool ok = t->rank == 0 && (i == 0 ? t->dtype == PLUMB_I1 : plumb_dtype_is_int(t->dtype));
        if (!ok) {
            type_str(t, ts, sizeof ts);
            return BAD("%s has type %s, expected %s", odesc(op, i, od, sizeof od), ts,
                       i == 0 ? "the predicate tensor<i1>" : "a 0-dimensional integer tensor (a value for the message)");
        }
    }
    if (!op->a.message)
        return BAD("has no error_message");
    for (const char *m = op->a.message; (m = strchr(m, '{')) != NULL; m++) {
        char *end;
        errno = 0;
        if (m[1] < '0' || m[1] > '9')
            continue;
        unsigned long k = strtoul(m + 1, &end, 10);
        if (*end != '}')
            continue;
        if (errno || k + 1 >= op->n_operands)
            return BAD("error_message refers to {%.*s}, but the op has only %u value operand%s after the predicate",
                       (int)(end - m - 1), m + 1, op->n_operands - 1, op->n_operands == 2 ? "" : "s");
    }
    return true;
}

/* ---- one op ------------------------------------------------------------------ */

/* The operand whose element type the table's `types` mask constrains; -1
 * when it is the result (ops without operands), -2 when none is. */
static int primary_operand(const ir_op *op)
{
    switch (op->code) {
    case PLUMB_OP_SELECT:
    case PLUMB_OP_CLAMP:
        return 1;
    case PLUMB_OP_CONSTANT:
    case PLUMB_OP_IOTA:
    case PLUMB_OP_DYNAMIC_IOTA:   /* operand 0 is the shape */
    case PLUMB_OP_COMPLEX:        /* its row's types are the result's */
        return -1;
    case PLUMB_OP_CALL:
    case PLUMB_OP_COMPOSITE:  /* the decomposition's types, checked by v_composite */
    case PLUMB_OP_FUNC_RETURN:
    case PLUMB_OP_RETURN:
    case PLUMB_OP_IF:     /* the types are the results'; pred and index are checked by v_branches */
    case PLUMB_OP_CASE:
    case PLUMB_OP_TUPLE:  /* any values, tuples too (v_tuple) */
    case PLUMB_OP_GET_TUPLE_ELEMENT:
    case PLUMB_OP_SCAN:   /* any values; the body's ops check theirs (v_scan) */
        return -2;
    default:
        return op->n_operands ? 0 : -2;
    }
}

static bool verify_op(vctx *V, const ir_op *op)
{
    if ((unsigned)op->code >= PLUMB_OP_COUNT)
        return fail_at(V, PLUMB_ERR_INVALID, op->loc, "unknown opcode %u", (unsigned)op->code);
    const plumb_op_info *info = plumb_op_get(op->code);
    if (info->arity != PLUMB_VAR && op->n_operands != (uint32_t)info->arity)
        return BAD("takes %d operand%s, got %u", info->arity, info->arity == 1 ? "" : "s", op->n_operands);
    if (info->results != PLUMB_VAR && op->n_results != (uint32_t)info->results)
        return BAD("has %d result%s, got %u", info->results, info->results == 1 ? "" : "s", op->n_results);
    bool wants_region = op->code == PLUMB_OP_REDUCE || op->code == PLUMB_OP_SORT ||
                        op->code == PLUMB_OP_REDUCE_WINDOW || op->code == PLUMB_OP_SELECT_AND_SCATTER ||
                        op->code == PLUMB_OP_SCATTER || op->code == PLUMB_OP_WHILE || op->code == PLUMB_OP_IF ||
                        op->code == PLUMB_OP_CASE || op->code == PLUMB_OP_MAP || op->code == PLUMB_OP_SCAN;
    if (!wants_region && op->n_regions)
        return BAD("takes no regions, has %u", op->n_regions);
    char what[200];
    for (uint32_t i = 0; i < op->n_operands; i++) {
        if (!op->operands[i])
            return BAD("operand %u is missing", i);
        char nb[160];
        snprintf(what, sizeof what, "operand %u%s", i, vname(op->operands[i], nb, sizeof nb));
        char prefix[80];
        snprintf(prefix, sizeof prefix, "%s: ", info->name);
        if (!check_type_form(V, op->loc, prefix, what, &op->operands[i]->type))
            return false;
    }
    for (uint32_t i = 0; i < op->n_results; i++) {
        if (!op->results[i])
            return BAD("result %u is missing", i);
        char nb[160], prefix[80];
        snprintf(what, sizeof what, "result %u%s", i, vname(op->results[i], nb, sizeof nb));
        snprintf(prefix, sizeof prefix, "%s: ", info->name);
        if (!check_type(V, op->loc, prefix, what, &op->results[i]->type))
            return false;
    }
    if (!carries_tuples(op->code)) {
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i]->type.tuple) {
                char nb[160];
                return BAD("operand %u%s has a tuple type; the op takes tensors (get_tuple_element takes a "
                           "tuple apart)", i, vname(op->operands[i], nb, sizeof nb));
            }
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i]->type.tuple) {
                char nb[160];
                return BAD("result %u%s has a tuple type; the op gives tensors", i,
                           vname(op->results[i], nb, sizeof nb));
            }
    }
    int p = primary_operand(op);
    if (p != -2) {
        const ir_value *pv = p >= 0 ? op->operands[p] : op->results[0];
        plumb_dtype e = pv->type.dtype;
        if (!(info->types & PLUMB_TY_BIT(e)) && !(plumb_dtype_is_complex(e) && ir_complex_accepts(op->code)) &&
            !ir_lowp_accepts(op->code, e)) {   /* ir/lowp.c */
            char nb[160], takes[80];
            /* StableHLO's float and integer types include the FP8/FP6/FP4
             * formats and i2/i4/ui2/ui4: an op the spec gives floats (or
             * integers) takes them, and plumb not running it on them yet
             * is plumb's limit, not an invalid program (docs/spec/types.md
             * lists the ops that run them). */
            /* Likewise complex for the ops that move, index, reduce or
             * window values of any type (the spec's "tensor" operands):
             * only elementwise ops exclude it by their semantics. */
            if (((PLUMB_TY_BIT(e) & PLUMB_TY_FLOAT8) && (info->types & PLUMB_TY_FLOAT)) ||
                ((PLUMB_TY_BIT(e) & PLUMB_TY_SUBINT) && (info->types & PLUMB_TY_INT)) ||
                (plumb_dtype_is_complex(e) && info->kind != PLUMB_KIND_ELEMENTWISE && info->kind != PLUMB_KIND_CHECK &&
                 (info->types & PLUMB_TY_FLOAT)))
                return op_fail(V, op, PLUMB_ERR_UNSUPPORTED,
                               "unsupported: %s %u%s: element type %s (plumb does not run %s on it yet)",
                               p >= 0 ? "operand" : "result", p >= 0 ? (unsigned)p : 0u,
                               vname(pv, nb, sizeof nb), dt(e), info->name);
            size_t tn = 0;
            takes[0] = '\0';
            if (info->types & PLUMB_TY_BOOL)
                put(takes, sizeof takes, &tn, "i1");
            if (info->types & PLUMB_TY_SINT)
                put(takes, sizeof takes, &tn, "%ssigned integers", tn ? ", " : "");
            if (info->types & PLUMB_TY_UINT)
                put(takes, sizeof takes, &tn, "%sunsigned integers", tn ? ", " : "");
            if (info->types & PLUMB_TY_FLOAT)
                put(takes, sizeof takes, &tn, "%sfloats", tn ? ", " : "");
            return BAD("%s %u%s: element type %s is not accepted (the op takes %s)",
                       p >= 0 ? "operand" : "result", p >= 0 ? (unsigned)p : 0u,
                       vname(pv, nb, sizeof nb), dt(e), takes);
        }
    }
    /* complex forms (ir/complex.c, docs/spec/complex.md) */
    if (op->code == PLUMB_OP_COMPLEX || op->code == PLUMB_OP_REAL || op->code == PLUMB_OP_IMAG ||
        ir_complex_kernel(op)) {
        char cb[160];
        const char *why = ir_complex_check(op, cb, sizeof cb);
        if (why)
            return BAD("%s", why);
        /* abs's real result and mixed real x complex dots have no same-type rule */
        if (op->code == PLUMB_OP_ABS ||
            ((op->code == PLUMB_OP_DOT_GENERAL || op->code == PLUMB_OP_DOT) &&
             op->operands[0]->type.dtype != op->operands[1]->type.dtype))
            return true;
    }
    switch (op->code) {
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_FLOOR:
    case PLUMB_OP_CEIL: case PLUMB_OP_ROUND_NEAREST_EVEN: case PLUMB_OP_ROUND_NEAREST_AFZ:
    case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_CBRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE:
    case PLUMB_OP_LOGISTIC: case PLUMB_OP_TANH: case PLUMB_OP_SINE: case PLUMB_OP_COSINE:
    case PLUMB_OP_TAN: case PLUMB_OP_IS_FINITE: case PLUMB_OP_NOT: case PLUMB_OP_POPCNT:
    case PLUMB_OP_COUNT_LEADING_ZEROS: case PLUMB_OP_REDUCE_PRECISION: case PLUMB_OP_ERF:
    case PLUMB_OP_ACOS: case PLUMB_OP_ASIN: case PLUMB_OP_ATAN: case PLUMB_OP_ACOSH:
    case PLUMB_OP_ASINH: case PLUMB_OP_ATANH: case PLUMB_OP_COSH: case PLUMB_OP_SINH:
    case PLUMB_OP_ERFC: case PLUMB_OP_SQUARE: case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF:
    case PLUMB_OP_IS_NEG_INF: case PLUMB_OP_LGAMMA: case PLUMB_OP_DIGAMMA: case PLUMB_OP_ERF_INV:
    case PLUMB_OP_BESSEL_I1E: case PLUMB_OP_CONJ: case PLUMB_OP_CHLO_TAN:
        return v_unary(V, op);
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
    case PLUMB_OP_REMAINDER: case PLUMB_OP_POWER: case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM:
    case PLUMB_OP_ATAN2: case PLUMB_OP_AND: case PLUMB_OP_OR: case PLUMB_OP_XOR:
    case PLUMB_OP_SHIFT_LEFT: case PLUMB_OP_SHIFT_RIGHT_ARITHMETIC:
    case PLUMB_OP_SHIFT_RIGHT_LOGICAL: case PLUMB_OP_COMPARE: case PLUMB_OP_NEXT_AFTER:
    case PLUMB_OP_ZETA: case PLUMB_OP_POLYGAMMA: case PLUMB_OP_MULHI:
        return v_binary(V, op);
    case PLUMB_OP_SELECT: return v_select(V, op);
    case PLUMB_OP_CLAMP: return v_clamp(V, op);
    case PLUMB_OP_CONVERT: return v_convert(V, op);
    case PLUMB_OP_BITCAST_CONVERT: return v_bitcast(V, op);
    case PLUMB_OP_CONSTANT: return v_constant(V, op);
    case PLUMB_OP_IOTA: return v_iota(V, op);
    case PLUMB_OP_BROADCAST_IN_DIM: return v_broadcast(V, op);
    case PLUMB_OP_RESHAPE: return v_reshape(V, op);
    case PLUMB_OP_TRANSPOSE: return v_transpose(V, op);
    case PLUMB_OP_SLICE: return v_slice(V, op);
    case PLUMB_OP_DYNAMIC_SLICE: return v_dynamic_slice(V, op);
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: return v_dynamic_update_slice(V, op);
    case PLUMB_OP_CONCATENATE: return v_concatenate(V, op);
    case PLUMB_OP_PAD: return v_pad(V, op);
    case PLUMB_OP_REVERSE: return v_reverse(V, op);
    case PLUMB_OP_REDUCE: return v_reduce(V, op);
    case PLUMB_OP_REDUCE_WINDOW: return v_reduce_window(V, op);
    case PLUMB_OP_SELECT_AND_SCATTER: return v_select_and_scatter(V, op);
    case PLUMB_OP_DOT_GENERAL: return v_dot_general(V, op);
    case PLUMB_OP_DOT: return v_dot(V, op);
    case PLUMB_OP_CONVOLUTION: return v_convolution(V, op);
    case PLUMB_OP_DYNAMIC_CONV: return v_dynamic_conv(V, op);
    case PLUMB_OP_GATHER: return v_gather(V, op);
    case PLUMB_OP_SCATTER: return v_scatter(V, op);
    case PLUMB_OP_SORT: return v_sort(V, op);
    case PLUMB_OP_TOP_K: return v_top_k(V, op);
    case PLUMB_OP_RNG_BIT_GENERATOR: return v_rng(V, op);
    case PLUMB_OP_CALL: return v_call(V, op);
    case PLUMB_OP_COMPOSITE: return v_composite(V, op);
    case PLUMB_OP_OPTIMIZATION_BARRIER: return v_optimization_barrier(V, op);
    case PLUMB_OP_TUPLE: return v_tuple(V, op);
    case PLUMB_OP_GET_TUPLE_ELEMENT: return v_get_tuple_element(V, op);
    case PLUMB_OP_MAP: return v_map(V, op);
    case PLUMB_OP_SCAN: return v_scan(V, op);
    case PLUMB_OP_TRIANGULAR_SOLVE: return v_triangular_solve(V, op);
    case PLUMB_OP_CHOLESKY: return v_cholesky(V, op);
    case PLUMB_OP_BATCH_NORM_INFERENCE:
    case PLUMB_OP_BATCH_NORM_TRAINING:
    case PLUMB_OP_BATCH_NORM_GRAD:
        return v_batch_norm(V, op);
    case PLUMB_OP_RAGGED_DOT: {   /* ir/ragged_dot.c */
        char rb[320];
        plumb_code rc = ir_ragged_dot_check(op, rb, sizeof rb);
        return rc == PLUMB_OK || op_fail(V, op, rc, "%s", rb);
    }
    case PLUMB_OP_FFT: {
        char fb[240];
        plumb_code fc = ir_fft_check(op, fb, sizeof fb);
        return fc == PLUMB_OK || op_fail(V, op, fc, "%s", fb);
    }
    case PLUMB_OP_WHILE: return v_while(V, op);
    case PLUMB_OP_IF:
    case PLUMB_OP_CASE:
        return v_branches(V, op);
    case PLUMB_OP_FUNC_RETURN:
    case PLUMB_OP_RETURN:
        return true;   /* checked against their function or owning op */
    case PLUMB_OP_EXPECT_EQ: case PLUMB_OP_EXPECT_EQ_CONST: case PLUMB_OP_EXPECT_CLOSE:
    case PLUMB_OP_EXPECT_CLOSE_CONST: case PLUMB_OP_EXPECT_ALMOST_EQ:
    case PLUMB_OP_EXPECT_ALMOST_EQ_CONST:
        return v_check(V, op);
    case PLUMB_OP_GET_DIMENSION_SIZE: return v_get_dimension_size(V, op);
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: return v_dynamic_broadcast(V, op);
    case PLUMB_OP_DYNAMIC_RESHAPE: return v_dynamic_reshape(V, op);
    case PLUMB_OP_DYNAMIC_IOTA: return v_dynamic_iota(V, op);
    case PLUMB_OP_REAL_DYNAMIC_SLICE: return v_real_dynamic_slice(V, op);
    case PLUMB_OP_DYNAMIC_PAD: return v_dynamic_pad(V, op);
    case PLUMB_OP_DYNAMIC_GATHER: return v_dynamic_gather(V, op);
    case PLUMB_OP_SHAPE_ASSERTION: return v_shape_assertion(V, op);
    case PLUMB_OP_COMPLEX: case PLUMB_OP_REAL: case PLUMB_OP_IMAG:
        return true;   /* ir_complex_check above */
    case PLUMB_OP_COUNT:
        break;
    }
    return fail_at(V, PLUMB_ERR_INVALID, op->loc, "unknown opcode %u", (unsigned)op->code);
}

/* ---- module ------------------------------------------------------------------ */

typedef struct scope {
    uint8_t *defined;      /* per value id: 1 while the value is in scope */
    uint32_t n;            /* entries in defined */
} scope;

static bool in_scope(const scope *s, const ir_value *v)
{
    return v->id < s->n && s->defined[v->id];
}

static void set_scope(scope *s, const ir_value *v, uint8_t on)
{
    if (v && v->id < s->n)
        s->defined[v->id] = on;
}

static bool verify_block(vctx *V, scope *s, const ir_block *b, const ir_func *f);

static bool block_arg_types(vctx *V, const ir_block *b, plumb_loc loc, const char *prefix)
{
    for (uint32_t i = 0; i < b->n_args; i++) {
        char what[400], nb[160], origin[220];
        if (!b->args[i])
            return fail_at(V, PLUMB_ERR_INVALID, loc, "%sargument %u is missing", prefix, i);
        /* the front end's `loc(...)` of the argument (JAX: its Python name) */
        ir_debug_loc_describe(origin, sizeof origin, b->args[i]->dloc);
        snprintf(what, sizeof what, "argument %u%s%s", i, vname(b->args[i], nb, sizeof nb), origin);
        if (!check_type(V, loc, prefix, what, &b->args[i]->type))
            return false;
    }
    return true;
}

/* Verifies the ops of b in order. f is the function when b is its body, NULL
 * for a region. Values go out of scope when their block ends. */
static bool verify_block(vctx *V, scope *s, const ir_block *b, const ir_func *f)
{
    bool ok = true;
    for (uint32_t i = 0; i < b->n_args; i++)
        set_scope(s, b->args[i], 1);
    if (!b->first) {
        if (f)
            ok = fail_at(V, PLUMB_ERR_INVALID, f->loc, "function @%s: body is empty; it must end in func.return", f->name);
        else
            ok = fail_at(V, PLUMB_ERR_INVALID, b->parent ? b->parent->loc : (plumb_loc){0, 0},
                         "%s: region is empty; it must end in stablehlo.return",
                         b->parent ? plumb_op_name(b->parent->code) : "region");
    }
    for (const ir_op *op = b->first; op && ok; op = op->next) {
        for (uint32_t i = 0; i < op->n_operands && ok; i++) {
            const ir_value *v = op->operands[i];
            if (v && !in_scope(s, v)) {
                char od[200];
                ok = BAD("%s is not defined before this use (values must be defined earlier in the same block or an enclosing one)",
                         odesc(op, i, od, sizeof od));
            }
        }
        if (!ok)
            break;
        bool last = op->next == NULL;
        if (op->code == PLUMB_OP_FUNC_RETURN && (!f || !last)) {
            ok = BAD("%s", f ? "must be the last op of its function" : "may only end a function body, not a region");
            break;
        }
        if (op->code == PLUMB_OP_RETURN && (f || !last)) {
            ok = BAD("%s", f ? "may only end a region, not a function body (use func.return)" : "must be the last op of its region");
            break;
        }
        if (last && f && op->code != PLUMB_OP_FUNC_RETURN) {
            ok = fail_at(V, PLUMB_ERR_INVALID, op->loc, "function @%s: body must end in func.return, ends in %s",
                         f->name, (unsigned)op->code < PLUMB_OP_COUNT ? plumb_op_name(op->code) : "?");
            break;
        }
        if (last && !f && op->code != PLUMB_OP_RETURN) {
            ok = fail_at(V, PLUMB_ERR_INVALID, op->loc, "%s: region must end in stablehlo.return, ends in %s",
                         b->parent ? plumb_op_name(b->parent->code) : "region",
                         (unsigned)op->code < PLUMB_OP_COUNT ? plumb_op_name(op->code) : "?");
            break;
        }
        /* Regions first: the op's rules read its regions' terminators. */
        for (uint32_t r = 0; r < op->n_regions && ok; r++) {
            char prefix[120];
            snprintf(prefix, sizeof prefix, "%s: region %u ", plumb_op_name(op->code), r);
            ok = block_arg_types(V, &op->regions[r], op->loc, prefix) &&
                 verify_block(V, s, &op->regions[r], NULL);
        }
        ok = ok && verify_op(V, op);
        if (ok && op->code == PLUMB_OP_FUNC_RETURN) {
            if (op->n_operands != f->n_results)
                ok = BAD("returns %u values but @%s declares %u results", op->n_operands, f->name, f->n_results);
            for (uint32_t i = 0; i < op->n_operands && ok; i++)
                if (!ir_type_equal(&op->operands[i]->type, &f->result_types[i])) {
                    char a[TSTR], t[TSTR], od[200];
                    type_str(&op->operands[i]->type, a, sizeof a);
                    type_str(&f->result_types[i], t, sizeof t);
                    ok = BAD("%s has type %s but @%s declares result %u as %s", odesc(op, i, od, sizeof od),
                             a, f->name, i, t);
                }
        }
        for (uint32_t i = 0; i < op->n_results && ok; i++)
            set_scope(s, op->results[i], 1);
    }
    /* Leaving the block: its values are no longer visible. */
    for (const ir_op *op = b->first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_results; i++)
            set_scope(s, op->results[i], 0);
    for (uint32_t i = 0; i < b->n_args; i++)
        set_scope(s, b->args[i], 0);
    return ok;
}

uint64_t ir_max_bytes(uint64_t requested)
{
    return plumb_max_bytes(requested);
}

bool ir_verify_op(const ir_op *op, const ir_module *m, uint64_t max_bytes, plumb_diag *d)
{
    vctx V = {m, ir_max_bytes(max_bytes), d};
    return verify_op(&V, op);
}

bool ir_verify(const ir_module *m, const ir_verify_options *opts, plumb_diag *d)
{
    uint64_t req = 0;
    if (opts) {
        if (opts->struct_size < offsetof(ir_verify_options, max_bytes) + sizeof opts->max_bytes) {
            plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0},
                           "ir_verify: options struct_size %zu is too small", opts->struct_size);
            return false;
        }
        req = opts->max_bytes;
    }
    vctx V = {m, ir_max_bytes(req), d};
    vctx *Vp = &V;
    /* The module's index maps each name to its first function, so any
     * other function of that name is a duplicate: one lookup each. */
    for (uint32_t i = 0; i < m->n_funcs; i++) {
        const ir_func *first = ir_module_find_func(m, m->funcs[i]->name);
        if (first != m->funcs[i])
            return fail_at(Vp, PLUMB_ERR_INVALID, m->funcs[i]->loc,
                           "function @%s is defined twice (first at line %u)", m->funcs[i]->name,
                           first ? first->loc.line : 0);
    }
    scope s = {NULL, m->next_value_id};
    if (s.n && !(s.defined = plumb_calloc(s.n, 1)))
        return fail_at(Vp, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory verifying the module");
    bool ok = true;
    for (uint32_t i = 0; i < m->n_funcs && ok; i++) {
        const ir_func *f = m->funcs[i];
        char prefix[300];
        snprintf(prefix, sizeof prefix, "function @%s: ", f->name);
        ok = block_arg_types(Vp, &f->body, f->loc, prefix);
        for (uint32_t r = 0; r < f->n_results && ok; r++) {
            char what[40];
            snprintf(what, sizeof what, "result %u", r);
            ok = check_type(Vp, f->loc, prefix, what, &f->result_types[r]);
        }
        ok = ok && verify_block(Vp, &s, &f->body, f);
    }
    plumb_free(s.defined, s.n);
    return ok;
}
