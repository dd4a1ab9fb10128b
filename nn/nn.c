/* The nn builder: argument checking, one helper per op, and the composites.
 * Every public call validates before it appends anything, so the function
 * being built only ever holds ops that the verifier accepts. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "plumb/nn.h"

static const plumb_loc no_loc = {0, 0};

/* ---- errors ------------------------------------------------------------------ */

static void fail(plumb_nn *nn, plumb_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(plumb_nn *nn, plumb_code code, const char *fmt, ...)
{
    if (!nn->failed) {
        va_list ap;
        va_start(ap, fmt);
        plumb_diag_vset(nn->d, code, no_loc, fmt, ap);
        va_end(ap);
    }
    nn->failed = true;
}

static void nomem(plumb_nn *nn, const char *fn)
{
    fail(nn, PLUMB_ERR_NOMEM, "nn.%s: out of memory while building the graph", fn);
}

/* "tensor<2x3xf32>" into a caller buffer, for messages. */
typedef struct tstr {
    char s[160];
} tstr;

static tstr type_str(const ir_type *t)
{
    tstr r;
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, t);
    snprintf(r.s, sizeof r.s, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
    return r;
}

/* True when the context can take another call and v is usable: a NULL v
 * after an earlier error just propagates it; a NULL v without one is API
 * misuse; dynamic dimensions are outside what the builder supports. */
static bool val_ok(plumb_nn *nn, const char *fn, const char *what, const ir_value *v)
{
    if (nn->failed)
        return false;
    if (!v) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: %s is NULL", fn, what);
        return false;
    }
    if (!ir_type_is_static(&v->type)) {
        fail(nn, PLUMB_ERR_UNSUPPORTED, "nn.%s: %s has a dynamic shape %s; the nn builder takes static shapes only",
             fn, what, type_str(&v->type).s);
        return false;
    }
    return true;
}

static bool float_ok(plumb_nn *nn, const char *fn, const char *what, const ir_value *v)
{
    if (!val_ok(nn, fn, what, v))
        return false;
    if (!plumb_dtype_is_float(v->type.dtype)) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s must have a float element type, got %s",
             fn, what, type_str(&v->type).s);
        return false;
    }
    return true;
}

static bool ctx_ok(plumb_nn *nn, const char *fn)
{
    if (nn->failed)
        return false;
    if (!nn->b) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: no function is being built (call plumb_nn_begin_func first)", fn);
        return false;
    }
    return true;
}

/* Validates a shape given by the caller: rank, non-negative dims and a size
 * that fits the default byte limit. */
static bool shape_ok(plumb_nn *nn, const char *fn, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    if ((unsigned)t >= PLUMB_DTYPE_COUNT) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: unknown element type %u", fn, (unsigned)t);
        return false;
    }
    if (rank > PLUMB_MAX_RANK) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: rank %u exceeds the maximum rank %d", fn, rank, PLUMB_MAX_RANK);
        return false;
    }
    if (rank && !dims) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: dims is NULL for rank %u", fn, rank);
        return false;
    }
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!plumb_shape_size(t, rank, dims, 0, NULL, NULL, &sd)) {
        fail(nn, sd.code, "nn.%s: %s", fn, sd.msg);
        return false;
    }
    return true;
}

static bool normalize_axis(plumb_nn *nn, const char *fn, const ir_value *x, int64_t axis, uint32_t *out)
{
    int64_t r = (int64_t)x->type.rank;
    int64_t a = axis < 0 ? axis + r : axis;
    if (r == 0 || a < 0 || a >= r) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: axis %lld is out of range for an operand of rank %lld (%s)",
             fn, (long long)axis, (long long)r, type_str(&x->type).s);
        return false;
    }
    *out = (uint32_t)a;
    return true;
}

/* ---- emitting ---------------------------------------------------------------- */

static ir_op *emit(plumb_nn *nn, const char *fn, plumb_opcode code, ir_value *const *operands,
                   uint32_t n_operands, const ir_type *res, uint32_t n_res)
{
    ir_op *op = ir_op_new(nn->m, code, operands, n_operands, res, n_res);
    if (!op) {
        nomem(nn, fn);
        return NULL;
    }
    ir_block_append(nn->b, op);
    return op;
}

static ir_value *emit1(plumb_nn *nn, const char *fn, plumb_opcode code, ir_value *const *operands,
                       uint32_t n_operands, const ir_type *res)
{
    ir_op *op = emit(nn, fn, code, operands, n_operands, res, 1);
    return op ? op->results[0] : NULL;
}

static bool set_ints(plumb_nn *nn, const char *fn, ir_ints *dst, const int64_t *v, uint32_t n)
{
    *dst = ir_ints_make(nn->m, v, n);
    if (n && !dst->v) {
        nomem(nn, fn);
        return false;
    }
    return true;
}

/* Stores v as element i of a dtype-t buffer; false when v cannot be
 * represented (non-integral or out of range for an integer type). */
static bool store_value(plumb_dtype t, void *data, size_t i, double v)
{
    switch (t) {
    case PLUMB_F32: {
        float f = (float)v;
        plumb_store_bits(t, data, i, plumb_f32_bits(f));
        return true;
    }
    case PLUMB_F64:
        plumb_store_bits(t, data, i, plumb_f64_bits(v));
        return true;
    case PLUMB_F16:
        plumb_store_bits(t, data, i, plumb_f64_to_f16(v));
        return true;
    case PLUMB_BF16:
        plumb_store_bits(t, data, i, plumb_f64_to_bf16(v));
        return true;
    case PLUMB_I1:
        if (v != 0.0 && v != 1.0)
            return false;
        plumb_store_bits(t, data, i, v != 0.0);
        return true;
    default:
        break;
    }
    if (v != floor(v))
        return false;
    uint32_t bits = plumb_dtype_get(t)->bits;
    if (plumb_dtype_is_signed(t)) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (!(v >= lo && v < hi))
            return false;
        plumb_store_bits(t, data, i, (uint64_t)(int64_t)v);
    } else {
        if (!(v >= 0.0 && v < ldexp(1.0, (int)bits)))
            return false;
        plumb_store_bits(t, data, i, (uint64_t)v);
    }
    return true;
}

/* A constant op with an arena-owned tensor (freed with the module). data is
 * numel doubles, or NULL for a splat of `splat`. */
static ir_value *make_constant(plumb_nn *nn, const char *fn, plumb_dtype t, uint32_t rank,
                               const int64_t *dims, const double *data, double splat)
{
    if (!ctx_ok(nn, fn) || !shape_ok(nn, fn, t, rank, dims))
        return NULL;
    uint64_t numel, nbytes;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!plumb_shape_size(t, rank, dims, 0, &numel, &nbytes, &sd)) {
        fail(nn, sd.code, "nn.%s: %s", fn, sd.msg);
        return NULL;
    }
    plumb_tensor *tn = plumb_arena_alloc(nn->m->arena, sizeof *tn);
    if (!tn) {
        nomem(nn, fn);
        return NULL;
    }
    tn->dtype = t;
    tn->rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        tn->dims[i] = dims[i];
    tn->nbytes = (size_t)nbytes;
    tn->owned = false;
    if (nbytes) {
        tn->data = plumb_arena_alloc(nn->m->arena, (size_t)nbytes);
        if (!tn->data) {
            nomem(nn, fn);
            return NULL;
        }
    }
    for (uint64_t i = 0; i < numel; i++) {
        double v = data ? data[i] : splat;
        if (!store_value(t, tn->data, (size_t)i, v)) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: value %.17g (element %llu) is not representable in %s",
                 fn, v, (unsigned long long)i, plumb_dtype_name(t));
            return NULL;
        }
    }
    ir_type ty = ir_type_make(t, rank, dims);
    ir_op *op = emit(nn, fn, PLUMB_OP_CONSTANT, NULL, 0, &ty, 1);
    if (!op)
        return NULL;
    op->a.value = tn;
    if (!data)   /* every element is `splat`: the compiler keys and lowers it by one (ir_attrs_value_splat) */
        op->a.value_splat_data = tn->data;
    return op->results[0];
}

/* ---- context ------------------------------------------------------------------- */

bool plumb_nn_init(plumb_nn *nn, ir_module *m, plumb_diag *d)
{
    memset(nn, 0, sizeof *nn);
    nn->d = d ? d : &nn->own;
    nn->m = m;
    if (!m) {
        fail(nn, PLUMB_ERR_USAGE, "nn.init: module is NULL");
        return false;
    }
    return true;
}

bool plumb_nn_begin_func(plumb_nn *nn, const char *name, bool is_public)
{
    if (nn->failed)
        return false;
    if (!name || !*name) {
        fail(nn, PLUMB_ERR_USAGE, "nn.begin_func: the function name is empty");
        return false;
    }
    if (ir_module_find_func(nn->m, name)) {
        fail(nn, PLUMB_ERR_INVALID, "nn.begin_func: function @%s already exists", name);
        return false;
    }
    ir_func *f = ir_func_new(nn->m, name, is_public);
    if (!f) {
        nomem(nn, "begin_func");
        return false;
    }
    nn->f = f;
    nn->b = &f->body;
    return true;
}

bool plumb_nn_return(plumb_nn *nn, ir_value *const *vals, uint32_t n)
{
    if (!ctx_ok(nn, "return"))
        return false;
    if (n && !vals) {
        fail(nn, PLUMB_ERR_USAGE, "nn.return: vals is NULL for %u results", n);
        return false;
    }
    if (nn->b->last && nn->b->last->code == PLUMB_OP_FUNC_RETURN) {
        fail(nn, PLUMB_ERR_INVALID, "nn.return: function @%s already returned", nn->f->name);
        return false;
    }
    ir_type types[64];
    if (n > 64) {
        fail(nn, PLUMB_ERR_INVALID, "nn.return: %u results exceed the builder's limit of 64", n);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!val_ok(nn, "return", "a returned value", vals[i]))
            return false;
        types[i] = vals[i]->type;
    }
    if (!emit(nn, "return", PLUMB_OP_FUNC_RETURN, vals, n, NULL, 0))
        return false;
    if (!ir_func_set_results(nn->m, nn->f, types, n)) {
        nomem(nn, "return");
        return false;
    }
    return true;
}

bool plumb_nn_ok(const plumb_nn *nn)
{
    return !nn->failed;
}

/* ---- values ---------------------------------------------------------------------- */

ir_value *plumb_nn_param(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    if (!ctx_ok(nn, "param") || !shape_ok(nn, "param", t, rank, dims))
        return NULL;
    if (nn->b->first) {
        fail(nn, PLUMB_ERR_USAGE, "nn.param: parameters of @%s must be added before its first op",
             nn->f->name);
        return NULL;
    }
    ir_type ty = ir_type_make(t, rank, dims);
    ir_value *v = ir_block_add_arg(nn->m, nn->b, &ty);
    if (!v)
        nomem(nn, "param");
    return v;
}

ir_value *plumb_nn_full(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims, double v)
{
    return make_constant(nn, "full", t, rank, dims, NULL, v);
}

ir_value *plumb_nn_scalar(plumb_nn *nn, plumb_dtype t, double v)
{
    return make_constant(nn, "scalar", t, 0, NULL, NULL, v);
}

ir_value *plumb_nn_constant(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                            const double *data)
{
    if (!nn->failed && !data) {
        fail(nn, PLUMB_ERR_USAGE, "nn.constant: data is NULL");
        return NULL;
    }
    return make_constant(nn, "constant", t, rank, dims, data, 0.0);
}

ir_value *plumb_nn_iota(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                        uint32_t iota_dim)
{
    if (!ctx_ok(nn, "iota") || !shape_ok(nn, "iota", t, rank, dims))
        return NULL;
    if (!(plumb_op_get(PLUMB_OP_IOTA)->types & PLUMB_TY_BIT(t))) {
        fail(nn, PLUMB_ERR_INVALID, "nn.iota: element type %s is not an integer or float type",
             plumb_dtype_name(t));
        return NULL;
    }
    if (iota_dim >= rank) {
        fail(nn, PLUMB_ERR_INVALID, "nn.iota: iota dimension %u is out of range for rank %u", iota_dim, rank);
        return NULL;
    }
    ir_type ty = ir_type_make(t, rank, dims);
    ir_op *op = emit(nn, "iota", PLUMB_OP_IOTA, NULL, 0, &ty, 1);
    if (!op)
        return NULL;
    op->a.dimension = iota_dim;
    return op->results[0];
}

/* ---- primitives ------------------------------------------------------------------ */

static bool types_accept(plumb_nn *nn, const char *fn, plumb_opcode code, const ir_value *x)
{
    if (plumb_op_get(code)->types & PLUMB_TY_BIT(x->type.dtype))
        return true;
    fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s does not accept element type %s", fn,
         plumb_op_name(code), plumb_dtype_name(x->type.dtype));
    return false;
}

static bool is_elementwise(plumb_opcode code, int arity)
{
    if ((unsigned)code >= PLUMB_OP_COUNT)
        return false;
    const plumb_op_info *in = plumb_op_get(code);
    return in->kind == PLUMB_KIND_ELEMENTWISE && in->arity == arity && code != PLUMB_OP_COMPARE &&
           code != PLUMB_OP_CONVERT && code != PLUMB_OP_REDUCE_PRECISION;
}

ir_value *plumb_nn_unary(plumb_nn *nn, plumb_opcode code, ir_value *x)
{
    if (!ctx_ok(nn, "unary") || !val_ok(nn, "unary", "operand", x))
        return NULL;
    if (!is_elementwise(code, 1)) {
        fail(nn, PLUMB_ERR_USAGE, "nn.unary: opcode %d is not a unary elementwise op", (int)code);
        return NULL;
    }
    if (!types_accept(nn, "unary", code, x))
        return NULL;
    ir_type ty = x->type;
    if (code == PLUMB_OP_IS_FINITE || code == PLUMB_OP_IS_INF || code == PLUMB_OP_IS_POS_INF ||
        code == PLUMB_OP_IS_NEG_INF)
        ty.dtype = PLUMB_I1;
    return emit1(nn, "unary", code, &x, 1, &ty);
}

static bool same_type(plumb_nn *nn, const char *fn, const ir_value *a, const ir_value *b)
{
    if (ir_type_equal(&a->type, &b->type))
        return true;
    fail(nn, PLUMB_ERR_INVALID, "nn.%s: operand types differ: %s and %s", fn,
         type_str(&a->type).s, type_str(&b->type).s);
    return false;
}

ir_value *plumb_nn_binary(plumb_nn *nn, plumb_opcode code, ir_value *a, ir_value *b)
{
    if (!ctx_ok(nn, "binary") || !val_ok(nn, "binary", "lhs", a) || !val_ok(nn, "binary", "rhs", b))
        return NULL;
    if (!is_elementwise(code, 2)) {
        fail(nn, PLUMB_ERR_USAGE, "nn.binary: opcode %d is not a binary elementwise op", (int)code);
        return NULL;
    }
    if (!same_type(nn, plumb_op_short_name(code), a, b) || !types_accept(nn, "binary", code, a))
        return NULL;
    ir_value *ops[2] = {a, b};
    return emit1(nn, "binary", code, ops, 2, &a->type);
}

ir_value *plumb_nn_add(plumb_nn *nn, ir_value *a, ir_value *b) { return plumb_nn_binary(nn, PLUMB_OP_ADD, a, b); }
ir_value *plumb_nn_sub(plumb_nn *nn, ir_value *a, ir_value *b) { return plumb_nn_binary(nn, PLUMB_OP_SUBTRACT, a, b); }
ir_value *plumb_nn_mul(plumb_nn *nn, ir_value *a, ir_value *b) { return plumb_nn_binary(nn, PLUMB_OP_MULTIPLY, a, b); }
ir_value *plumb_nn_div(plumb_nn *nn, ir_value *a, ir_value *b) { return plumb_nn_binary(nn, PLUMB_OP_DIVIDE, a, b); }

ir_value *plumb_nn_compare(plumb_nn *nn, ir_cmp_dir dir, ir_value *a, ir_value *b)
{
    if (!ctx_ok(nn, "compare") || !val_ok(nn, "compare", "lhs", a) || !val_ok(nn, "compare", "rhs", b))
        return NULL;
    if ((unsigned)dir > IR_CMP_GE) {
        fail(nn, PLUMB_ERR_USAGE, "nn.compare: unknown comparison direction %d", (int)dir);
        return NULL;
    }
    if (!same_type(nn, "compare", a, b))
        return NULL;
    ir_type ty = a->type;
    ty.dtype = PLUMB_I1;
    ir_value *ops[2] = {a, b};
    ir_op *op = emit(nn, "compare", PLUMB_OP_COMPARE, ops, 2, &ty, 1);
    if (!op)
        return NULL;
    op->a.cmp_dir = dir;
    op->a.cmp_type = IR_CMP_TYPE_NONE;
    return op->results[0];
}

ir_value *plumb_nn_select(plumb_nn *nn, ir_value *pred, ir_value *on_true, ir_value *on_false)
{
    if (!ctx_ok(nn, "select") || !val_ok(nn, "select", "pred", pred) ||
        !val_ok(nn, "select", "on_true", on_true) || !val_ok(nn, "select", "on_false", on_false))
        return NULL;
    if (!same_type(nn, "select", on_true, on_false))
        return NULL;
    ir_type want = on_true->type;
    want.dtype = PLUMB_I1;
    if (pred->type.dtype != PLUMB_I1 ||
        (pred->type.rank != 0 && !ir_type_equal(&pred->type, &want))) {
        fail(nn, PLUMB_ERR_INVALID, "nn.select: pred must be i1 of shape %s or a scalar, got %s",
             type_str(&want).s, type_str(&pred->type).s);
        return NULL;
    }
    ir_value *ops[3] = {pred, on_true, on_false};
    return emit1(nn, "select", PLUMB_OP_SELECT, ops, 3, &on_true->type);
}

ir_value *plumb_nn_convert(plumb_nn *nn, ir_value *x, plumb_dtype t)
{
    if (!ctx_ok(nn, "convert") || !val_ok(nn, "convert", "operand", x))
        return NULL;
    if ((unsigned)t >= PLUMB_DTYPE_COUNT) {
        fail(nn, PLUMB_ERR_INVALID, "nn.convert: unknown element type %u", (unsigned)t);
        return NULL;
    }
    ir_type ty = x->type;
    ty.dtype = t;
    return emit1(nn, "convert", PLUMB_OP_CONVERT, &x, 1, &ty);
}

ir_value *plumb_nn_broadcast_in_dim(plumb_nn *nn, ir_value *x, uint32_t rank, const int64_t *dims,
                                    const int64_t *bdims)
{
    const char *fn = "broadcast_in_dim";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x) || !shape_ok(nn, fn, x->type.dtype, rank, dims))
        return NULL;
    if (x->type.rank && !bdims) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: broadcast_dimensions is NULL", fn);
        return NULL;
    }
    if (x->type.rank > rank) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: operand %s has a higher rank than the result rank %u",
             fn, type_str(&x->type).s, rank);
        return NULL;
    }
    for (uint32_t i = 0; i < x->type.rank; i++) {
        if (bdims[i] < 0 || bdims[i] >= (int64_t)rank || (i && bdims[i] <= bdims[i - 1])) {
            fail(nn, PLUMB_ERR_INVALID,
                 "nn.%s: broadcast_dimensions[%u] = %lld must be in [0, %u) and increasing",
                 fn, i, (long long)bdims[i], rank);
            return NULL;
        }
        int64_t od = x->type.dims[i], rd = dims[bdims[i]];
        if (od != 1 && od != rd) {
            fail(nn, PLUMB_ERR_INVALID,
                 "nn.%s: operand dimension %u has size %lld, which is neither 1 nor the result's size %lld at dimension %lld",
                 fn, i, (long long)od, (long long)rd, (long long)bdims[i]);
            return NULL;
        }
    }
    ir_type ty = ir_type_make(x->type.dtype, rank, dims);
    ir_op *op = emit(nn, fn, PLUMB_OP_BROADCAST_IN_DIM, &x, 1, &ty, 1);
    if (!op || !set_ints(nn, fn, &op->a.dims, bdims, x->type.rank))
        return NULL;
    return op->results[0];
}

ir_value *plumb_nn_broadcast_to(plumb_nn *nn, ir_value *x, const ir_type *like)
{
    const char *fn = "broadcast_to";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x))
        return NULL;
    if (!like) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: target type is NULL", fn);
        return NULL;
    }
    uint32_t r = x->type.rank;
    bool fits = r <= like->rank;
    for (uint32_t i = 0; fits && i < r; i++)
        fits = x->type.dims[i] == like->dims[like->rank - r + i];
    if (!fits) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s does not match the trailing dimensions of %s",
             fn, type_str(&x->type).s, type_str(like).s);
        return NULL;
    }
    int64_t bd[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < r; i++)
        bd[i] = (int64_t)(like->rank - r + i);
    return plumb_nn_broadcast_in_dim(nn, x, like->rank, like->dims, bd);
}

ir_value *plumb_nn_reshape(plumb_nn *nn, ir_value *x, uint32_t rank, const int64_t *dims)
{
    const char *fn = "reshape";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x) || !shape_ok(nn, fn, x->type.dtype, rank, dims))
        return NULL;
    uint64_t a, b;
    plumb_diag sd;
    memset(&sd, 0, sizeof sd);
    if (!plumb_shape_size(x->type.dtype, x->type.rank, x->type.dims, 0, &a, NULL, &sd) ||
        !plumb_shape_size(x->type.dtype, rank, dims, 0, &b, NULL, &sd)) {
        fail(nn, sd.code, "nn.%s: %s", fn, sd.msg);
        return NULL;
    }
    ir_type ty = ir_type_make(x->type.dtype, rank, dims);
    if (a != b) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: cannot reshape %s (%llu elements) to %s (%llu elements)",
             fn, type_str(&x->type).s, (unsigned long long)a, type_str(&ty).s, (unsigned long long)b);
        return NULL;
    }
    return emit1(nn, fn, PLUMB_OP_RESHAPE, &x, 1, &ty);
}

ir_value *plumb_nn_transpose(plumb_nn *nn, ir_value *x, const int64_t *perm)
{
    const char *fn = "transpose";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x))
        return NULL;
    uint32_t r = x->type.rank;
    if (r && !perm) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: permutation is NULL", fn);
        return NULL;
    }
    bool seen[PLUMB_MAX_RANK] = {false};
    int64_t dims[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < r; i++) {
        if (perm[i] < 0 || perm[i] >= (int64_t)r || seen[perm[i]]) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: permutation[%u] = %lld is out of range or repeated for rank %u",
                 fn, i, (long long)perm[i], r);
            return NULL;
        }
        seen[perm[i]] = true;
        dims[i] = x->type.dims[perm[i]];
    }
    ir_type ty = ir_type_make(x->type.dtype, r, dims);
    ir_op *op = emit(nn, fn, PLUMB_OP_TRANSPOSE, &x, 1, &ty, 1);
    if (!op || !set_ints(nn, fn, &op->a.dims, perm, r))
        return NULL;
    return op->results[0];
}

ir_value *plumb_nn_slice(plumb_nn *nn, ir_value *x, const int64_t *start, const int64_t *limit)
{
    const char *fn = "slice";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x))
        return NULL;
    uint32_t r = x->type.rank;
    if (r && (!start || !limit)) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: start or limit is NULL", fn);
        return NULL;
    }
    int64_t dims[PLUMB_MAX_RANK], ones[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < r; i++) {
        if (start[i] < 0 || start[i] > limit[i] || limit[i] > x->type.dims[i]) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: range [%lld:%lld] of dimension %u is not within [0:%lld] of %s",
                 fn, (long long)start[i], (long long)limit[i], i, (long long)x->type.dims[i],
                 type_str(&x->type).s);
            return NULL;
        }
        dims[i] = limit[i] - start[i];
        ones[i] = 1;
    }
    ir_type ty = ir_type_make(x->type.dtype, r, dims);
    ir_op *op = emit(nn, fn, PLUMB_OP_SLICE, &x, 1, &ty, 1);
    if (!op || !set_ints(nn, fn, &op->a.start, start, r) || !set_ints(nn, fn, &op->a.limit, limit, r) ||
        !set_ints(nn, fn, &op->a.strides, ones, r))
        return NULL;
    return op->results[0];
}

/* Marks dimension lists of one operand, rejecting out-of-range and repeated
 * entries (a dimension can be batch or contracting, not both). */
static bool mark_dims(plumb_nn *nn, const char *fn, const char *what, const ir_value *x,
                      const int64_t *d, uint32_t n, bool *used)
{
    for (uint32_t i = 0; i < n; i++) {
        if (d[i] < 0 || d[i] >= (int64_t)x->type.rank || used[d[i]]) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s[%u] = %lld is out of range or repeated for %s",
                 fn, what, i, (long long)d[i], type_str(&x->type).s);
            return false;
        }
        used[d[i]] = true;
    }
    return true;
}

ir_value *plumb_nn_dot_general(plumb_nn *nn, ir_value *a, ir_value *b,
                               const int64_t *a_batch, const int64_t *b_batch, uint32_t n_batch,
                               const int64_t *a_contract, const int64_t *b_contract,
                               uint32_t n_contract)
{
    const char *fn = "dot_general";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "lhs", a) || !val_ok(nn, fn, "rhs", b))
        return NULL;
    if ((n_batch && (!a_batch || !b_batch)) || (n_contract && (!a_contract || !b_contract))) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: a dimension list is NULL", fn);
        return NULL;
    }
    if (a->type.dtype != b->type.dtype) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: element types differ: %s and %s", fn,
             type_str(&a->type).s, type_str(&b->type).s);
        return NULL;
    }
    bool ua[PLUMB_MAX_RANK] = {false}, ub[PLUMB_MAX_RANK] = {false};
    if (!mark_dims(nn, fn, "lhs_batching_dimensions", a, a_batch, n_batch, ua) ||
        !mark_dims(nn, fn, "rhs_batching_dimensions", b, b_batch, n_batch, ub) ||
        !mark_dims(nn, fn, "lhs_contracting_dimensions", a, a_contract, n_contract, ua) ||
        !mark_dims(nn, fn, "rhs_contracting_dimensions", b, b_contract, n_contract, ub))
        return NULL;
    for (uint32_t i = 0; i < n_batch; i++) {
        if (a->type.dims[a_batch[i]] != b->type.dims[b_batch[i]]) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: batching dimension %u has size %lld in lhs %s but %lld in rhs %s",
                 fn, i, (long long)a->type.dims[a_batch[i]], type_str(&a->type).s,
                 (long long)b->type.dims[b_batch[i]], type_str(&b->type).s);
            return NULL;
        }
    }
    for (uint32_t i = 0; i < n_contract; i++) {
        if (a->type.dims[a_contract[i]] != b->type.dims[b_contract[i]]) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: contracting dimension %u has size %lld in lhs %s but %lld in rhs %s",
                 fn, i, (long long)a->type.dims[a_contract[i]], type_str(&a->type).s,
                 (long long)b->type.dims[b_contract[i]], type_str(&b->type).s);
            return NULL;
        }
    }
    int64_t dims[2 * PLUMB_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t i = 0; i < n_batch; i++)
        dims[r++] = a->type.dims[a_batch[i]];
    for (uint32_t i = 0; i < a->type.rank; i++)
        if (!ua[i])
            dims[r++] = a->type.dims[i];
    for (uint32_t i = 0; i < b->type.rank; i++)
        if (!ub[i])
            dims[r++] = b->type.dims[i];
    if (r > PLUMB_MAX_RANK) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: the result rank %u exceeds the maximum rank %d", fn, r, PLUMB_MAX_RANK);
        return NULL;
    }
    if (!shape_ok(nn, fn, a->type.dtype, r, dims))
        return NULL;
    ir_type ty = ir_type_make(a->type.dtype, r, dims);
    ir_value *ops[2] = {a, b};
    ir_op *op = emit(nn, fn, PLUMB_OP_DOT_GENERAL, ops, 2, &ty, 1);
    if (!op || !set_ints(nn, fn, &op->a.lhs_batch, a_batch, n_batch) ||
        !set_ints(nn, fn, &op->a.rhs_batch, b_batch, n_batch) ||
        !set_ints(nn, fn, &op->a.lhs_contract, a_contract, n_contract) ||
        !set_ints(nn, fn, &op->a.rhs_contract, b_contract, n_contract))
        return NULL;
    return op->results[0];
}

/* The lowest value of t: -inf for floats, the minimum for integers. */
static double lowest(plumb_dtype t)
{
    if (plumb_dtype_is_float(t))
        return -INFINITY;
    if (plumb_dtype_is_signed(t))
        return -ldexp(1.0, (int)plumb_dtype_get(t)->bits - 1);
    return 0.0;
}

ir_value *plumb_nn_reduce(plumb_nn *nn, ir_value *x, plumb_nn_reducer r, const int64_t *dims,
                          uint32_t n)
{
    const char *fn = "reduce";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x))
        return NULL;
    if (r != PLUMB_NN_SUM && r != PLUMB_NN_MAX) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: unknown reducer %d", fn, (int)r);
        return NULL;
    }
    if (n && !dims) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: dimensions is NULL", fn);
        return NULL;
    }
    plumb_dtype t = x->type.dtype;
    if (plumb_dtype_is_bool(t)) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: cannot sum or take the maximum of i1 operand %s",
             fn, type_str(&x->type).s);
        return NULL;
    }
    bool used[PLUMB_MAX_RANK] = {false};
    if (!mark_dims(nn, fn, "dimensions", x, dims, n, used))
        return NULL;
    int64_t rd[PLUMB_MAX_RANK];
    uint32_t rr = 0;
    for (uint32_t i = 0; i < x->type.rank; i++)
        if (!used[i])
            rd[rr++] = x->type.dims[i];
    ir_value *init = plumb_nn_scalar(nn, t, r == PLUMB_NN_SUM ? 0.0 : lowest(t));
    if (!init)
        return NULL;
    ir_type ty = ir_type_make(t, rr, rd);
    ir_value *ops[2] = {x, init};
    ir_op *op = emit(nn, fn, PLUMB_OP_REDUCE, ops, 2, &ty, 1);
    if (!op)
        return NULL;
    /* Reduce dimensions are listed in increasing order, as written by the
     * StableHLO printer. */
    int64_t sorted[PLUMB_MAX_RANK];
    uint32_t ns = 0;
    for (uint32_t i = 0; i < x->type.rank; i++)
        if (used[i])
            sorted[ns++] = i;
    if (!set_ints(nn, fn, &op->a.dims, sorted, ns) || !ir_op_add_regions(nn->m, op, 1)) {
        nomem(nn, fn);
        return NULL;
    }
    ir_block *body = &op->regions[0];
    ir_type st = ir_type_scalar(t);
    ir_value *acc = ir_block_add_arg(nn->m, body, &st);
    ir_value *el = ir_block_add_arg(nn->m, body, &st);
    if (!acc || !el) {
        nomem(nn, fn);
        return NULL;
    }
    ir_value *args[2] = {acc, el};
    ir_op *comb = ir_op_new(nn->m, r == PLUMB_NN_SUM ? PLUMB_OP_ADD : PLUMB_OP_MAXIMUM, args, 2, &st, 1);
    if (!comb) {
        nomem(nn, fn);
        return NULL;
    }
    ir_block_append(body, comb);
    ir_op *ret = ir_op_new(nn->m, PLUMB_OP_RETURN, comb->results, 1, NULL, 0);
    if (!ret) {
        nomem(nn, fn);
        return NULL;
    }
    ir_block_append(body, ret);
    return op->results[0];
}

bool plumb_nn_top_k(plumb_nn *nn, ir_value *x, int64_t k, ir_value **values, ir_value **indices)
{
    const char *fn = "top_k";
    if (values)
        *values = NULL;
    if (indices)
        *indices = NULL;
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "operand", x))
        return false;
    if (!values || !indices) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: values or indices output is NULL", fn);
        return false;
    }
    if (!types_accept(nn, fn, PLUMB_OP_TOP_K, x))
        return false;
    uint32_t r = x->type.rank;
    if (r == 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: operand must have rank >= 1, got %s", fn, type_str(&x->type).s);
        return false;
    }
    if (k < 0 || k > x->type.dims[r - 1]) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: k = %lld must be in [0, %lld], the size of the last dimension of %s",
             fn, (long long)k, (long long)x->type.dims[r - 1], type_str(&x->type).s);
        return false;
    }
    ir_type res[2];
    res[0] = x->type;
    res[0].dims[r - 1] = k;
    res[1] = res[0];
    res[1].dtype = PLUMB_I32;
    ir_op *op = emit(nn, fn, PLUMB_OP_TOP_K, &x, 1, res, 2);
    if (!op)
        return false;
    op->a.k = k;
    *values = op->results[0];
    *indices = op->results[1];
    return true;
}

bool plumb_nn_call(plumb_nn *nn, const char *callee, ir_value *const *args, uint32_t n_args,
                   ir_value **results, uint32_t n_results)
{
    const char *fn = "call";
    if (!ctx_ok(nn, fn))
        return false;
    if (!callee || (n_args && !args) || (n_results && !results)) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: callee, args or results is NULL", fn);
        return false;
    }
    const ir_func *f = ir_module_find_func(nn->m, callee);
    if (!f) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: no function @%s in the module", fn, callee);
        return false;
    }
    if (f->body.n_args != n_args || f->n_results != n_results) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: @%s takes %u arguments and returns %u results, called with %u and %u",
             fn, callee, f->body.n_args, f->n_results, n_args, n_results);
        return false;
    }
    for (uint32_t i = 0; i < n_args; i++) {
        if (!val_ok(nn, fn, "an argument", args[i]))
            return false;
        if (!ir_type_equal(&args[i]->type, &f->body.args[i]->type)) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: argument %u of @%s has type %s, expected %s", fn, i, callee,
                 type_str(&args[i]->type).s, type_str(&f->body.args[i]->type).s);
            return false;
        }
    }
    ir_op *op = emit(nn, fn, PLUMB_OP_CALL, args, n_args, f->result_types, n_results);
    if (!op)
        return false;
    op->a.callee = plumb_arena_strdup(nn->m->arena, callee);
    if (!op->a.callee) {
        nomem(nn, fn);
        return false;
    }
    for (uint32_t i = 0; i < n_results; i++)
        results[i] = op->results[i];
    return true;
}

/* ---- checks ------------------------------------------------------------------------ */

static ir_op *check_op(plumb_nn *nn, const char *fn, plumb_opcode code, ir_value *got, ir_value *expected)
{
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "got", got) || !val_ok(nn, fn, "expected", expected))
        return NULL;
    if (!same_type(nn, fn, got, expected))
        return NULL;
    ir_value *ops[2] = {got, expected};
    return emit(nn, fn, code, ops, 2, NULL, 0);
}

bool plumb_nn_check_almost_eq(plumb_nn *nn, ir_value *got, ir_value *expected, double tolerance)
{
    if (!nn->failed && !(tolerance >= 0.0 && isfinite(tolerance))) {
        fail(nn, PLUMB_ERR_INVALID, "nn.check_almost_eq: tolerance %g must be finite and >= 0", tolerance);
        return false;
    }
    ir_op *op = check_op(nn, "check_almost_eq", PLUMB_OP_EXPECT_ALMOST_EQ, got, expected);
    if (op)
        op->a.tolerance = tolerance;
    return op != NULL;
}

bool plumb_nn_check_close(plumb_nn *nn, ir_value *got, ir_value *expected, int64_t min_ulp,
                          int64_t max_ulp)
{
    if (!nn->failed && !(min_ulp >= 0 && min_ulp <= max_ulp)) {
        fail(nn, PLUMB_ERR_INVALID, "nn.check_close: ULP range [%lld, %lld] is empty or negative",
             (long long)min_ulp, (long long)max_ulp);
        return false;
    }
    ir_op *op = check_op(nn, "check_close", PLUMB_OP_EXPECT_CLOSE, got, expected);
    if (op) {
        op->a.min_ulp = min_ulp;
        op->a.max_ulp = max_ulp;
    }
    return op != NULL;
}

bool plumb_nn_check_eq(plumb_nn *nn, ir_value *got, ir_value *expected)
{
    return check_op(nn, "check_eq", PLUMB_OP_EXPECT_EQ, got, expected) != NULL;
}

/* ---- composites ---------------------------------------------------------------------- */

/* The full-shape constant v of x's type. */
static ir_value *full_like(plumb_nn *nn, const ir_value *x, double v)
{
    return plumb_nn_full(nn, x->type.dtype, x->type.rank, x->type.dims, v);
}

/* Reduces x along one axis and broadcasts the result back to x's shape. */
static ir_value *reduce_keep(plumb_nn *nn, ir_value *x, plumb_nn_reducer r, uint32_t axis)
{
    int64_t ax = axis;
    ir_value *red = plumb_nn_reduce(nn, x, r, &ax, 1);
    if (!red)
        return NULL;
    int64_t bd[PLUMB_MAX_RANK];
    uint32_t j = 0;
    for (uint32_t i = 0; i < x->type.rank; i++)
        if (i != axis)
            bd[j++] = i;
    return plumb_nn_broadcast_in_dim(nn, red, x->type.rank, x->type.dims, bd);
}

/* x - max(x) along axis, the shift that keeps exp from overflowing. */
static ir_value *shifted(plumb_nn *nn, ir_value *x, uint32_t axis)
{
    return plumb_nn_sub(nn, x, reduce_keep(nn, x, PLUMB_NN_MAX, axis));
}

ir_value *plumb_nn_softmax(plumb_nn *nn, ir_value *x, int64_t axis)
{
    uint32_t a;
    if (!ctx_ok(nn, "softmax") || !float_ok(nn, "softmax", "operand", x) ||
        !normalize_axis(nn, "softmax", x, axis, &a))
        return NULL;
    ir_value *e = plumb_nn_unary(nn, PLUMB_OP_EXPONENTIAL, shifted(nn, x, a));
    return plumb_nn_div(nn, e, reduce_keep(nn, e, PLUMB_NN_SUM, a));
}

ir_value *plumb_nn_log_softmax(plumb_nn *nn, ir_value *x, int64_t axis)
{
    uint32_t a;
    if (!ctx_ok(nn, "log_softmax") || !float_ok(nn, "log_softmax", "operand", x) ||
        !normalize_axis(nn, "log_softmax", x, axis, &a))
        return NULL;
    ir_value *s = shifted(nn, x, a);
    ir_value *e = plumb_nn_unary(nn, PLUMB_OP_EXPONENTIAL, s);
    ir_value *lse = plumb_nn_unary(nn, PLUMB_OP_LOG, reduce_keep(nn, e, PLUMB_NN_SUM, a));
    return plumb_nn_sub(nn, s, lse);
}

/* gamma/beta of a norm: rank 1, the size of x's last axis, x's type. */
static bool affine_ok(plumb_nn *nn, const char *fn, const char *what, const ir_value *x, const ir_value *p)
{
    if (!p)
        return true;
    if (!float_ok(nn, fn, what, p))
        return false;
    int64_t n = x->type.dims[x->type.rank - 1];
    if (p->type.rank != 1 || p->type.dims[0] != n || p->type.dtype != x->type.dtype) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s must be tensor<%lldx%s> to match the last axis of %s, got %s",
             fn, what, (long long)n, plumb_dtype_name(x->type.dtype), type_str(&x->type).s,
             type_str(&p->type).s);
        return false;
    }
    return true;
}

static bool norm_args_ok(plumb_nn *nn, const char *fn, const ir_value *x, double eps)
{
    if (!ctx_ok(nn, fn) || !float_ok(nn, fn, "operand", x))
        return false;
    if (x->type.rank == 0 || x->type.dims[x->type.rank - 1] == 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: operand %s needs a non-empty last axis", fn, type_str(&x->type).s);
        return false;
    }
    if (!(eps >= 0.0 && isfinite(eps))) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: eps %g must be finite and >= 0", fn, eps);
        return false;
    }
    return true;
}

/* sum(v) / n along the last axis, broadcast back to v's shape. */
static ir_value *mean_last(plumb_nn *nn, ir_value *v)
{
    uint32_t a = v->type.rank - 1;
    ir_value *s = reduce_keep(nn, v, PLUMB_NN_SUM, a);
    return plumb_nn_div(nn, s, full_like(nn, v, (double)v->type.dims[a]));
}

ir_value *plumb_nn_layer_norm(plumb_nn *nn, ir_value *x, ir_value *gamma, ir_value *beta, double eps)
{
    const char *fn = "layer_norm";
    if (!norm_args_ok(nn, fn, x, eps) || !affine_ok(nn, fn, "gamma", x, gamma) ||
        !affine_ok(nn, fn, "beta", x, beta))
        return NULL;
    ir_value *xc = plumb_nn_sub(nn, x, mean_last(nn, x));
    ir_value *var = mean_last(nn, plumb_nn_mul(nn, xc, xc));
    ir_value *inv = plumb_nn_unary(nn, PLUMB_OP_RSQRT, plumb_nn_add(nn, var, full_like(nn, x, eps)));
    ir_value *y = plumb_nn_mul(nn, xc, inv);
    if (gamma)
        y = plumb_nn_mul(nn, y, plumb_nn_broadcast_to(nn, gamma, &x->type));
    if (beta)
        y = plumb_nn_add(nn, y, plumb_nn_broadcast_to(nn, beta, &x->type));
    return y;
}

ir_value *plumb_nn_rms_norm(plumb_nn *nn, ir_value *x, ir_value *gamma, double eps)
{
    const char *fn = "rms_norm";
    if (!norm_args_ok(nn, fn, x, eps) || !affine_ok(nn, fn, "gamma", x, gamma))
        return NULL;
    ir_value *ms = mean_last(nn, plumb_nn_mul(nn, x, x));
    ir_value *inv = plumb_nn_unary(nn, PLUMB_OP_RSQRT, plumb_nn_add(nn, ms, full_like(nn, x, eps)));
    ir_value *y = plumb_nn_mul(nn, x, inv);
    if (gamma)
        y = plumb_nn_mul(nn, y, plumb_nn_broadcast_to(nn, gamma, &x->type));
    return y;
}

ir_value *plumb_nn_gelu(plumb_nn *nn, ir_value *x, plumb_nn_gelu_form form)
{
    if (!ctx_ok(nn, "gelu") || !float_ok(nn, "gelu", "operand", x))
        return NULL;
    ir_value *inner;
    if (form == PLUMB_NN_GELU_ERF) {
        /* 1/sqrt(2) */
        inner = plumb_nn_unary(nn, PLUMB_OP_ERF,
                               plumb_nn_mul(nn, x, full_like(nn, x, 0.70710678118654752440)));
    } else if (form == PLUMB_NN_GELU_TANH) {
        ir_value *x3 = plumb_nn_mul(nn, plumb_nn_mul(nn, x, x), x);
        ir_value *u = plumb_nn_add(nn, x, plumb_nn_mul(nn, x3, full_like(nn, x, 0.044715)));
        /* sqrt(2/pi) */
        inner = plumb_nn_unary(nn, PLUMB_OP_TANH,
                               plumb_nn_mul(nn, u, full_like(nn, x, 0.79788456080286535588)));
    } else {
        fail(nn, PLUMB_ERR_USAGE, "nn.gelu: unknown form %d", (int)form);
        return NULL;
    }
    ir_value *onep = plumb_nn_add(nn, inner, full_like(nn, x, 1.0));
    return plumb_nn_mul(nn, plumb_nn_mul(nn, x, full_like(nn, x, 0.5)), onep);
}

ir_value *plumb_nn_silu(plumb_nn *nn, ir_value *x)
{
    if (!ctx_ok(nn, "silu") || !float_ok(nn, "silu", "operand", x))
        return NULL;
    return plumb_nn_mul(nn, x, plumb_nn_unary(nn, PLUMB_OP_LOGISTIC, x));
}

ir_value *plumb_nn_linear(plumb_nn *nn, ir_value *x, ir_value *w, ir_value *bias)
{
    const char *fn = "linear";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "x", x) || !val_ok(nn, fn, "w", w))
        return NULL;
    if (x->type.rank == 0 || w->type.rank != 2 || x->type.dims[x->type.rank - 1] != w->type.dims[0]) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: x %s and w %s do not form x [..., in] . w [in, out]",
             fn, type_str(&x->type).s, type_str(&w->type).s);
        return NULL;
    }
    int64_t ca = x->type.rank - 1, cb = 0;
    ir_value *y = plumb_nn_dot_general(nn, x, w, NULL, NULL, 0, &ca, &cb, 1);
    if (!y || !bias)
        return y;
    if (!val_ok(nn, fn, "bias", bias))
        return NULL;
    if (bias->type.rank != 1 || bias->type.dims[0] != w->type.dims[1] || bias->type.dtype != w->type.dtype) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: bias must be tensor<%lldx%s>, got %s", fn,
             (long long)w->type.dims[1], plumb_dtype_name(w->type.dtype), type_str(&bias->type).s);
        return NULL;
    }
    return plumb_nn_add(nn, y, plumb_nn_broadcast_to(nn, bias, &y->type));
}

ir_value *plumb_nn_softmax_cross_entropy(plumb_nn *nn, ir_value *logits, ir_value *labels)
{
    const char *fn = "softmax_cross_entropy";
    if (!ctx_ok(nn, fn) || !float_ok(nn, fn, "logits", logits) || !float_ok(nn, fn, "labels", labels))
        return NULL;
    if (logits->type.rank != 2 || logits->type.dims[0] == 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: logits must be [rows, classes] with rows > 0, got %s",
             fn, type_str(&logits->type).s);
        return NULL;
    }
    if (!same_type(nn, fn, logits, labels))
        return NULL;
    ir_value *lp = plumb_nn_log_softmax(nn, logits, 1);
    int64_t all[2] = {0, 1};
    ir_value *s = plumb_nn_reduce(nn, plumb_nn_mul(nn, labels, lp), PLUMB_NN_SUM, all, 2);
    return plumb_nn_div(nn, s, plumb_nn_scalar(nn, logits->type.dtype, -(double)logits->type.dims[0]));
}

ir_value *plumb_nn_causal_mask(plumb_nn *nn, int64_t sq, int64_t sk)
{
    const char *fn = "causal_mask";
    if (!ctx_ok(nn, fn))
        return NULL;
    if (sq < 0 || sk < 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: sizes %lld x %lld must be >= 0", fn, (long long)sq, (long long)sk);
        return NULL;
    }
    int64_t d[2] = {sq, sk};
    ir_value *i = plumb_nn_iota(nn, PLUMB_I32, 2, d, 0);
    ir_value *j = plumb_nn_iota(nn, PLUMB_I32, 2, d, 1);
    return plumb_nn_compare(nn, IR_CMP_LE, j, i);
}

/* The lowest finite value of a float type (what a masked score becomes). */
static double lowest_finite(plumb_dtype t)
{
    switch (t) {
    case PLUMB_F16: return -65504.0;
    case PLUMB_BF16: return -0x1.fep127;
    case PLUMB_F32: return -FLT_MAX;
    default: return -DBL_MAX;
    }
}

ir_value *plumb_nn_attention(plumb_nn *nn, ir_value *q, ir_value *k, ir_value *v,
                             ir_value *mask, double scale)
{
    const char *fn = "attention";
    if (!ctx_ok(nn, fn) || !float_ok(nn, fn, "q", q) || !float_ok(nn, fn, "k", k) || !float_ok(nn, fn, "v", v))
        return NULL;
    uint32_t r = q->type.rank;
    bool ok = r >= 2 && k->type.rank == r && v->type.rank == r && q->type.dtype == k->type.dtype &&
              q->type.dtype == v->type.dtype;
    for (uint32_t i = 0; ok && i + 2 < r; i++)
        ok = q->type.dims[i] == k->type.dims[i] && q->type.dims[i] == v->type.dims[i];
    if (ok)
        ok = q->type.dims[r - 1] == k->type.dims[r - 1] && k->type.dims[r - 2] == v->type.dims[r - 2];
    if (!ok) {
        fail(nn, PLUMB_ERR_INVALID,
             "nn.%s: q %s, k %s, v %s must be [B..., Sq, D], [B..., Sk, D], [B..., Sk, Dv] of one float type",
             fn, type_str(&q->type).s, type_str(&k->type).s, type_str(&v->type).s);
        return NULL;
    }
    if (!(isfinite(scale))) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: scale %g is not finite", fn, scale);
        return NULL;
    }
    int64_t d = q->type.dims[r - 1];
    if (scale <= 0.0)
        scale = d > 0 ? 1.0 / sqrt((double)d) : 1.0;
    int64_t batch[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i + 2 < r; i++)
        batch[i] = i;
    uint32_t nb = r - 2;
    int64_t qc = r - 1, kc = r - 1;
    /* Scores come out as [B..., Sq, Sk]: batch dims, then q's free Sq, then k's free Sk. */
    ir_value *s = plumb_nn_dot_general(nn, q, k, batch, batch, nb, &qc, &kc, 1);
    if (!s)
        return NULL;
    s = plumb_nn_mul(nn, s, full_like(nn, s, scale));
    if (mask && !val_ok(nn, fn, "mask", mask))
        return NULL;
    if (mask && s) {
        int64_t sq = s->type.dims[r - 2], sk = s->type.dims[r - 1];
        bool two = mask->type.rank == 2 && mask->type.dims[0] == sq && mask->type.dims[1] == sk;
        bool full = mask->type.rank == r && memcmp(mask->type.dims, s->type.dims, r * sizeof(int64_t)) == 0;
        bool dt = mask->type.dtype == PLUMB_I1 || mask->type.dtype == q->type.dtype;
        if (!(two || full) || !dt) {
            fail(nn, PLUMB_ERR_INVALID, "nn.%s: mask %s must be i1 or %s of shape [%lld, %lld] or %s",
                 fn, type_str(&mask->type).s, plumb_dtype_name(q->type.dtype), (long long)sq,
                 (long long)sk, type_str(&s->type).s);
            return NULL;
        }
        ir_value *m = full ? mask : plumb_nn_broadcast_to(nn, mask, &s->type);
        if (mask->type.dtype == PLUMB_I1)
            s = plumb_nn_select(nn, m, s, full_like(nn, s, lowest_finite(s->type.dtype)));
        else
            s = plumb_nn_add(nn, s, m);
    }
    ir_value *p = plumb_nn_softmax(nn, s, -1);
    int64_t pc = r - 1, vc = r - 2;
    return plumb_nn_dot_general(nn, p, v, batch, batch, nb, &pc, &vc, 1);
}

/* Column j of a [T, K] tensor, as [T]. */
static ir_value *column(plumb_nn *nn, ir_value *x, int64_t j)
{
    int64_t t = x->type.dims[0];
    int64_t start[2] = {0, j}, limit[2] = {t, j + 1};
    return plumb_nn_reshape(nn, plumb_nn_slice(nn, x, start, limit), 1, &t);
}

/* Both routings: cap_param (tensor<i32>, or NULL) replaces the static
 * capacity in the drop test; the slots dimension stays `capacity`. */
static bool moe_route(plumb_nn *nn, const char *fn, ir_value *logits, int64_t k, int64_t capacity,
                      ir_value *cap_param, bool renormalize, plumb_nn_moe_routing *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!ctx_ok(nn, fn) || !float_ok(nn, fn, "logits", logits))
        return false;
    if (!out) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: out is NULL", fn);
        return false;
    }
    if (logits->type.rank != 2) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: logits must be [tokens, experts], got %s", fn,
             type_str(&logits->type).s);
        return false;
    }
    int64_t t = logits->type.dims[0], e = logits->type.dims[1];
    if (k < 1 || k > e || k > 64) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: k = %lld must be in [1, %lld] (the number of experts, at most 64)",
             fn, (long long)k, (long long)e);
        return false;
    }
    if (capacity < 1) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: capacity %lld must be >= 1", fn, (long long)capacity);
        return false;
    }
    plumb_dtype ft = logits->type.dtype;
    /* Counts and slot positions are small integers, held exactly in the
     * float type up to 2^(mantissa+1); beyond that the routing would be
     * wrong, so refuse. */
    double exact = ldexp(1.0, (int)plumb_dtype_get(ft)->mant_bits + 1);
    if ((double)t * (double)k > exact || (double)capacity > exact) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: %lld tokens x k %lld or capacity %lld exceed the integers %s holds exactly",
             fn, (long long)t, (long long)k, (long long)capacity, plumb_dtype_name(ft));
        return false;
    }
    int64_t tec[3] = {t, e, capacity}, te[2] = {t, e}, tt[2] = {t, t};
    ir_value *probs = plumb_nn_softmax(nn, logits, 1);
    ir_value *vals, *idx;
    if (!plumb_nn_top_k(nn, probs, k, &vals, &idx))
        return false;
    ir_value *gsum = NULL;
    if (renormalize) {
        int64_t one = 1;
        ir_value *sum = plumb_nn_reduce(nn, vals, PLUMB_NN_SUM, &one, 1);
        gsum = sum;
    }
    ir_value *idxf = plumb_nn_convert(nn, idx, ft);
    /* before[t, t'] = 1 when t' < t: before . onehot counts earlier tokens. */
    /* One builder call per statement: the order of evaluation of a call's
     * arguments is unspecified (gcc and clang differ), and it would decide
     * the order of the emitted ops. */
    ir_value *row = plumb_nn_iota(nn, PLUMB_I32, 2, tt, 0);
    ir_value *col = plumb_nn_iota(nn, PLUMB_I32, 2, tt, 1);
    ir_value *before = plumb_nn_convert(nn, plumb_nn_compare(nn, IR_CMP_LT, col, row), ft);
    ir_value *expert_ids = plumb_nn_iota(nn, ft, 2, te, 1);
    ir_value *slot_ids = plumb_nn_iota(nn, ft, 3, tec, 2);
    /* A choice keeps its slot while its position is below the capacity; a
     * capacity parameter is compared the same way (positions >= the slots
     * dimension have no slot whatever it says). */
    ir_value *cap = cap_param ? plumb_nn_broadcast_in_dim(nn, plumb_nn_convert(nn, cap_param, ft), 2, te, NULL)
                              : plumb_nn_full(nn, ft, 2, te, (double)capacity);
    ir_value *filled = plumb_nn_full(nn, ft, 1, &e, 0.0);   /* slots taken per expert so far */
    ir_value *dispatch = NULL, *combine = NULL;
    for (int64_t j = 0; j < k && !nn->failed; j++) {
        ir_value *cj = column(nn, idxf, j);                        /* [T] expert of choice j */
        ir_value *gj = column(nn, vals, j);                        /* [T] its probability */
        if (renormalize)
            gj = plumb_nn_div(nn, gj, gsum);
        int64_t b0 = 0;
        ir_value *onehot = plumb_nn_convert(
            nn, plumb_nn_compare(nn, IR_CMP_EQ, expert_ids, plumb_nn_broadcast_in_dim(nn, cj, 2, te, &b0)), ft);
        int64_t c1 = 1, c0 = 0;
        ir_value *earlier = plumb_nn_dot_general(nn, before, onehot, NULL, NULL, 0, &c1, &c0, 1);
        int64_t b1 = 1;
        ir_value *pos = plumb_nn_add(nn, earlier, plumb_nn_broadcast_in_dim(nn, filled, 2, te, &b1));
        ir_value *keep = plumb_nn_mul(
            nn, onehot, plumb_nn_convert(nn, plumb_nn_compare(nn, IR_CMP_LT, pos, cap), ft));
        int64_t b01[2] = {0, 1};
        ir_value *slot = plumb_nn_convert(
            nn, plumb_nn_compare(nn, IR_CMP_EQ, slot_ids, plumb_nn_broadcast_in_dim(nn, pos, 3, tec, b01)), ft);
        ir_value *dj = plumb_nn_mul(nn, slot, plumb_nn_broadcast_in_dim(nn, keep, 3, tec, b01));
        ir_value *cwj = plumb_nn_mul(nn, dj, plumb_nn_broadcast_in_dim(nn, gj, 3, tec, &b0));
        dispatch = dispatch ? plumb_nn_add(nn, dispatch, dj) : dj;
        combine = combine ? plumb_nn_add(nn, combine, cwj) : cwj;
        if (j + 1 < k) {
            int64_t r0 = 0;
            filled = plumb_nn_add(nn, filled, plumb_nn_reduce(nn, onehot, PLUMB_NN_SUM, &r0, 1));
        }
    }
    if (nn->failed)
        return false;
    out->probs = probs;
    out->dispatch = dispatch;
    out->combine = combine;
    return true;
}

bool plumb_nn_moe_route(plumb_nn *nn, ir_value *logits, int64_t k, int64_t capacity,
                        bool renormalize, plumb_nn_moe_routing *out)
{
    return moe_route(nn, "moe_route", logits, k, capacity, NULL, renormalize, out);
}

/* ---- canonicalization policies ------------------------------------------------ */

/* A tensor<i32> parameter holding a count (k, a capacity, a length). */
static bool count_param_ok(plumb_nn *nn, const char *fn, const char *what, const ir_value *v)
{
    if (!val_ok(nn, fn, what, v))
        return false;
    if (v->type.dtype != PLUMB_I32 || v->type.rank != 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: %s must be tensor<i32>, got %s", fn, what, type_str(&v->type).s);
        return false;
    }
    return true;
}

int64_t plumb_nn_bucket(const int64_t *buckets, uint32_t n, int64_t len)
{
    if (!buckets || len < 1)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (buckets[i] >= len)
            return buckets[i];
    return -1;
}

ir_value *plumb_nn_length_mask(plumb_nn *nn, ir_value *len, uint32_t rank, const int64_t *dims, uint32_t dim)
{
    const char *fn = "length_mask";
    if (!ctx_ok(nn, fn) || !count_param_ok(nn, fn, "len", len) || !shape_ok(nn, fn, PLUMB_I32, rank, dims))
        return NULL;
    if (dim >= rank) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: dimension %u is out of range for rank %u", fn, dim, rank);
        return NULL;
    }
    ir_value *pos = plumb_nn_iota(nn, PLUMB_I32, rank, dims, dim);
    ir_value *lb = plumb_nn_broadcast_in_dim(nn, len, rank, dims, NULL);
    return plumb_nn_compare(nn, IR_CMP_LT, pos, lb);
}

/* Copies the block of x that fits into y (same rank, same dims but along
 * dim), row-major, element by element; y's other elements keep their bits. */
static void copy_overlap(const plumb_tensor *x, plumb_tensor *y, uint32_t dim)
{
    size_t es = plumb_dtype_size(x->dtype);
    int64_t outer = 1, inner = 1;
    for (uint32_t i = 0; i < dim; i++)
        outer *= x->dims[i];
    for (uint32_t i = dim + 1; i < x->rank; i++)
        inner *= x->dims[i];
    int64_t nx = x->dims[dim], ny = y->dims[dim], nc = nx < ny ? nx : ny;
    for (int64_t o = 0; o < outer; o++)
        if (nc > 0 && inner > 0)
            memcpy((char *)y->data + (size_t)((o * ny) * inner) * es, (const char *)x->data + (size_t)((o * nx) * inner) * es,
                   (size_t)(nc * inner) * es);
}

static plumb_tensor *resized(const plumb_tensor *x, uint32_t dim, int64_t size, const char *fn, plumb_diag *d)
{
    if (!x || dim >= x->rank || size < 0) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "nn.%s: %s", fn,
                       !x ? "the tensor is NULL" : size < 0 ? "the size is negative" : "the dimension is out of range");
        return NULL;
    }
    int64_t dims[PLUMB_MAX_RANK];
    memcpy(dims, x->dims, x->rank * sizeof *dims);
    dims[dim] = size;
    return plumb_tensor_new(x->dtype, x->rank, dims, 0, d);
}

plumb_tensor *plumb_nn_pad_tensor(const plumb_tensor *x, uint32_t dim, int64_t size, double fill, plumb_diag *d)
{
    plumb_tensor *y = resized(x, dim, size, "pad_tensor", d);
    if (!y)
        return NULL;
    if (size < x->dims[dim]) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "nn.pad_tensor: size %lld is below dimension %u's %lld",
                       (long long)size, dim, (long long)x->dims[dim]);
        plumb_tensor_free(y);
        return NULL;
    }
    uint64_t n = plumb_tensor_numel(y);
    if (!store_value(y->dtype, y->data, 0, fill) && n) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "nn.pad_tensor: fill %g is not a %s value", fill,
                       plumb_dtype_name(y->dtype));
        plumb_tensor_free(y);
        return NULL;
    }
    for (uint64_t i = 1; i < n; i++)
        store_value(y->dtype, y->data, (size_t)i, fill);
    copy_overlap(x, y, dim);
    return y;
}

plumb_tensor *plumb_nn_unpad_tensor(const plumb_tensor *x, uint32_t dim, int64_t len, plumb_diag *d)
{
    plumb_tensor *y = resized(x, dim, len, "unpad_tensor", d);
    if (!y)
        return NULL;
    if (len > x->dims[dim]) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "nn.unpad_tensor: length %lld is above dimension %u's %lld",
                       (long long)len, dim, (long long)x->dims[dim]);
        plumb_tensor_free(y);
        return NULL;
    }
    copy_overlap(x, y, dim);
    return y;
}

bool plumb_nn_optional_param(plumb_nn *nn, plumb_dtype t, uint32_t rank, const int64_t *dims,
                             ir_value **field, ir_value **present)
{
    if (field)
        *field = NULL;
    if (present)
        *present = NULL;
    if (!ctx_ok(nn, "optional_param"))
        return false;
    if (!field || !present) {
        fail(nn, PLUMB_ERR_USAGE, "nn.optional_param: field or present output is NULL");
        return false;
    }
    *field = plumb_nn_param(nn, t, rank, dims);
    *present = plumb_nn_param(nn, PLUMB_I1, 0, NULL);
    return *field && *present;
}

ir_value *plumb_nn_optional_value(plumb_nn *nn, ir_value *field, ir_value *present, double absent)
{
    const char *fn = "optional_value";
    if (!ctx_ok(nn, fn) || !val_ok(nn, fn, "field", field) || !val_ok(nn, fn, "present", present))
        return NULL;
    if (present->type.dtype != PLUMB_I1 || present->type.rank != 0) {
        fail(nn, PLUMB_ERR_INVALID, "nn.%s: present must be tensor<i1>, got %s", fn, type_str(&present->type).s);
        return NULL;
    }
    ir_value *fill = make_constant(nn, fn, field->type.dtype, field->type.rank, field->type.dims, NULL, absent);
    ir_value *pb = plumb_nn_broadcast_in_dim(nn, present, field->type.rank, field->type.dims, NULL);
    return plumb_nn_select(nn, pb, field, fill);
}

bool plumb_nn_top_k_clamped(plumb_nn *nn, ir_value *x, int64_t k_max, ir_value *k, ir_value **values,
                            ir_value **indices, ir_value **mask)
{
    const char *fn = "top_k_clamped";
    if (values)
        *values = NULL;
    if (indices)
        *indices = NULL;
    if (mask)
        *mask = NULL;
    if (!ctx_ok(nn, fn) || !count_param_ok(nn, fn, "k", k))
        return false;
    if (!mask) {
        fail(nn, PLUMB_ERR_USAGE, "nn.%s: mask output is NULL", fn);
        return false;
    }
    ir_value *v, *i;
    if (!plumb_nn_top_k(nn, x, k_max, &v, &i))
        return false;
    const ir_type *vt = &v->type;
    ir_value *m = plumb_nn_length_mask(nn, k, vt->rank, vt->dims, vt->rank - 1);
    ir_value *zero = make_constant(nn, fn, vt->dtype, vt->rank, vt->dims, NULL, 0.0);
    ir_value *vk = plumb_nn_select(nn, m, v, zero);
    if (nn->failed)
        return false;
    *values = vk;
    *indices = i;
    *mask = m;
    return true;
}

bool plumb_nn_moe_route_clamped(plumb_nn *nn, ir_value *logits, int64_t k, int64_t capacity_max,
                                ir_value *capacity, bool renormalize, plumb_nn_moe_routing *out)
{
    const char *fn = "moe_route_clamped";
    if (out)
        memset(out, 0, sizeof *out);
    if (!ctx_ok(nn, fn) || (capacity && !count_param_ok(nn, fn, "capacity", capacity)))
        return false;
    return moe_route(nn, fn, logits, k, capacity_max, capacity, renormalize, out);
}
