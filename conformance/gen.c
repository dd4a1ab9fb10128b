/* Case generators: every op of the table × accepted element type × shape
 * class × value class, deterministic for a seed (docs/conformance.md).
 * Which shape and value classes an op gets is decided by its kind and
 * opcode (conf_shape_classes, conf_value_classes), never by a list of op
 * names; manifest.c counts the same plan with its own arithmetic. */
#include "gen_family.h"
#include "batchnorm_bound.h"
#include "fft_bound.h"
#include "conv_types.h"
#include "linalg_bound.h"
#include "dotalg_gen.h"

/* ---- the plan ------------------------------------------------------------------ */

static const char *const SH_EW[] = {"odd", "scalar", "empty", "one", "wide", "broadcast"};
static const char *const SH_MOVE[] = {"odd", "empty", "one", "wide", "dimnums"};
static const char *const SH_CONST[] = {"odd", "scalar", "empty", "one"};
static const char *const SH_BITCAST[] = {"odd", "scalar", "empty", "wide"};
static const char *const SH_DOT[] = {"odd", "scalar", "empty", "one", "wide", "dimnums"};
/* convolution: NHWC 3x3 padded, empty features, 1x1x1, wide features with
 * stride 2, NCHW/OIHW, feature groups, batch groups, 1-D with lhs and rhs
 * dilation, padding and reversal, and a 1-D program with every dimension
 * list out of the usual order */
static const char *const SH_CONV[] = {"odd", "empty", "one", "wide", "nchw", "groups", "batch_groups", "dilated", "layout"};
/* dynamic_conv, its padding a parameter read when the program runs: NHWC
 * 3x3 "same" padding, negative (cropping) padding, unequal low/high with
 * stride 2, and 1-D with lhs and rhs dilation and reversal */
static const char *const SH_DYNCONV[] = {"same", "crop", "asym", "dilated"};
static const char *const SH_INDEX[] = {"odd", "one", "empty", "dimnums"};
static const char *const SH_SORT[] = {"odd", "one", "empty", "wide", "dimnums"};
static const char *const SH_TOPK[] = {"odd", "one", "wide"};
/* optimization_barrier: the operand shape; a second operand of another
 * shape and type passes through beside it */
static const char *const SH_BARRIER[] = {"odd", "scalar", "empty", "wide"};
/* triangular_solve and cholesky: the shape class fixes the attributes and
 * shapes (gen_linalg), the value class the conditioning (gen_linalg.c) */
static const char *const SH_TRSM[] = {"left_lower", "left_upper_trans_unit", "right_lower_adjoint", "right_upper_unit",
                                      "batch", "empty"};
static const char *const SH_CHOL[] = {"lower", "upper", "batch", "one", "empty"};
/* fft: type and transformed dimensions (gen_fft says the shapes) */
static const char *const SH_FFT[] = {"fft1", "ifft1", "rfft1", "irfft1", "fft2", "ifft3", "rfft2", "irfft3", "prime", "empty"};
/* while: loops of 0, 1 and 5 iterations over an odd tensor, and a loop of 3
 * iterations whose body runs a loop of 2 */
static const char *const SH_WHILE[] = {"trip0", "trip1", "trip5", "nested"};
/* reduce_window (docs/spec/window.md): NHWC pooling 2x2 stride 2
 * (maximum) and 3x3 stride 2 padding 1 (add), a rank-2 window with base and
 * window dilations and padding (add), a rank-1 strided window with padding
 * (minimum) and a rank-3 window (multiply on integers, maximum on floats);
 * select_and_scatter: the pooling gradients 2x2/2 and 3x3/2 padding 1
 * (select GE, scatter add), and rank 1 (GT) and rank 2 (LE) windows. */
static const char *const SH_RWIN[] = {"pool2", "pool3", "dilated", "r1", "r3"};
static const char *const SH_SAS[] = {"pool2", "pool3", "r1", "r2"};
/* batch norm: rank 2, 3 and 4 operands with every feature_index (docs/spec/batchnorm.md) */
static const char *const SH_BN[] = {"r2_f0", "r2_f1", "r3_f0", "r3_f1", "r3_f2", "r4_f0", "r4_f1", "r4_f2", "r4_f3"};
static const char *const V_BN[] = {"normal", "shifted", "constant"};
/* if: each branch taken, and an if inside the taken branch of another;
 * case: each of three branches, and an index outside [0, 3) (-1: the last) */
static const char *const SH_IF[] = {"taken_true", "taken_false", "nested"};
static const char *const SH_CASE[] = {"branch0", "branch1", "branch2", "out_of_range"};
/* map: two inputs through a body of elementwise ops and a constant (the
 * runtime's tiled path) over an odd, a scalar, an empty and a wide (several
 * tiles) shape, and an odd shape whose body reads a scalar of the function
 * (captured: the per-element path) */
static const char *const SH_MAP[] = {"odd", "scalar", "empty", "wide", "captured"};
/* chlo.scan: 7x13 along 0 and 1, along 0 reversed, 0x5, two inputs and carries (conf_gen_scan) */
static const char *const SH_SCAN[] = {"dim0", "dim1", "reverse", "empty", "multi"};
/* chlo.ragged_dot (gen_ragged.c) */
static const char *const SH_RAGGED[] = {"noncontract", "contract", "batch", "batched", "prefix", "empty"};
/* composite: its decomposition over the case's shape: odd, scalar, empty, wide */
static const char *const SH_COMPOSITE[] = {"odd", "scalar", "empty", "wide"};
/* tuple, get_tuple_element: a nested tuple of the case's shape (conf_gen_tuple) */
static const char *const SH_TUPLE[] = {"odd", "scalar", "empty", "wide"};

/* The dynamic ops' own cases: every `?` at one of the polymorphic sizes. */
static const char *const SH_DYN[] = {"dyn_odd", "dyn_0", "dyn_1", "dyn_bound"};

static const char *const V_FLOAT[] = {"special", "subnormal", "boundary", "normal", "uniform", "loguniform"};
static const char *const V_INT[] = {"boundary", "uniform"};
static const char *const V_BOOL[] = {"uniform"};
static const char *const V_NONE[] = {"none"};
static const char *const V_RNG[] = {"three_fry", "philox"};
static const char *const V_TRSM[] = {"wellcond", "illcond"};
static const char *const V_CHOL[] = {"spd", "illcond", "notpd"};
static const char *const V_FFT[] = {"normal", "wide", "tone"};   /* conformance/gen_fft.c */

const int64_t conf_poly_sizes[CONF_POLY_N_SIZES] = {0, 1, 7, CONF_POLY_BOUND};
const char *const conf_poly_classes[CONF_POLY_N_SIZES] = {"dyn_0", "dyn_1", "dyn_odd", "dyn_bound"};

static int64_t poly_size(const char *sc)
{
    for (uint32_t i = 0; i < CONF_POLY_N_SIZES; i++)
        if (!strcmp(sc, conf_poly_classes[i])) return conf_poly_sizes[i];
    return -1;
}

bool conf_op_dynamic(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_GET_DIMENSION_SIZE: case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_DYNAMIC_IOTA: case PLUMB_OP_REAL_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_PAD:
    case PLUMB_OP_DYNAMIC_GATHER:
        return true;
    default:
        return false;
    }
}

/* Ops of static form whose operands may be polymorphic get the "dyn_*"
 * family: every elementwise op, reduce, the contractions, and the data
 * movement and indexing ops whose result keeps the `?` or consumes it
 * (reshape and slice need a static result size, and broadcast_in_dim a
 * static operand dim for a `?` result dim, since a `?` of size 1 would
 * expand: their dynamic forms dynamic_reshape, real_dynamic_slice and
 * dynamic_broadcast_in_dim cover them; constant, iota and
 * rng_bit_generator have no tensor operand that could be `?`; dynamic_slice
 * and dynamic_update_slice need static slice sizes within every size, 0
 * included). */
bool conf_op_poly(plumb_opcode op)
{
    if (op == PLUMB_OP_REDUCE_WINDOW) return false;   /* its own shape family only */
    if (op == PLUMB_OP_TRIANGULAR_SOLVE || op == PLUMB_OP_CHOLESKY) return false;   /* matrices of static size */
    if (conf_op_batch_norm(op)) return false;   /* its own shape family only */
    if (op == PLUMB_OP_FFT) return false;   /* static fft_length */
    /* convolution takes static operands only (dynamic_conv is not in plumb) */
    if (op == PLUMB_OP_CONVOLUTION) return false;
    if (op == PLUMB_OP_DYNAMIC_CONV) return false;   /* its own shape classes only */
    if (op == PLUMB_OP_RAGGED_DOT) return false;     /* static shapes only (docs/spec/ragged_dot.md) */
    switch (plumb_op_get(op)->kind) {
    case PLUMB_KIND_ELEMENTWISE: case PLUMB_KIND_REDUCTION: case PLUMB_KIND_CONTRACTION: return true;
    case PLUMB_KIND_MOVEMENT:
        return op == PLUMB_OP_BITCAST_CONVERT || op == PLUMB_OP_TRANSPOSE || op == PLUMB_OP_REVERSE ||
               op == PLUMB_OP_CONCATENATE || op == PLUMB_OP_PAD;
    case PLUMB_KIND_INDEXING:
        return op == PLUMB_OP_GATHER || op == PLUMB_OP_SCATTER || op == PLUMB_OP_SORT || op == PLUMB_OP_TOP_K;
    default: return false;
    }
}

char *conf_poly_concretize(plumb_arena *a, const char *program, int64_t size)
{
    plumb_buf b;
    plumb_buf_init(&b);
    static const char enc[] = ", #stablehlo.bounds<";
    for (const char *p = program; *p;) {
        if (!strncmp(p, enc, sizeof enc - 1)) {
            const char *q = strchr(p + sizeof enc - 1, '>');
            if (!q) break;
            p = q + 1;
        } else if (*p == '?') {
            plumb_buf_printf(&b, "%lld", (long long)size);
            p++;
        } else {
            plumb_buf_append(&b, p++, 1);
        }
    }
    char *r = b.failed || !b.data ? NULL : plumb_arena_strndup(a, b.data, b.len);
    plumb_buf_free(&b);
    return r;
}

bool conf_op_generated(plumb_opcode op)
{
    if (op == PLUMB_OP_OPTIMIZATION_BARRIER || op == PLUMB_OP_WHILE || op == PLUMB_OP_IF || op == PLUMB_OP_CASE ||
        op == PLUMB_OP_MAP || op == PLUMB_OP_COMPOSITE || op == PLUMB_OP_TUPLE || op == PLUMB_OP_GET_TUPLE_ELEMENT ||
        op == PLUMB_OP_SCAN)
        return true;
    if (op == PLUMB_OP_COMPLEX)   /* complex types are not generated yet (docs/spec/complex.md) */
        return false;
    plumb_kind k = plumb_op_get(op)->kind;
    return k != PLUMB_KIND_FUNC && k != PLUMB_KIND_CHECK;
}

const char *const *conf_shape_classes(plumb_opcode op, uint32_t *n)
{
    const plumb_op_info *oi = plumb_op_get(op);
    if (conf_op_dynamic(op)) { *n = LEN(SH_DYN); return SH_DYN; }
    switch (op) {
    case PLUMB_OP_CONSTANT: *n = LEN(SH_CONST); return SH_CONST;
    case PLUMB_OP_BITCAST_CONVERT: *n = LEN(SH_BITCAST); return SH_BITCAST;
    case PLUMB_OP_SORT: *n = LEN(SH_SORT); return SH_SORT;
    case PLUMB_OP_TOP_K: *n = LEN(SH_TOPK); return SH_TOPK;
    case PLUMB_OP_OPTIMIZATION_BARRIER: *n = LEN(SH_BARRIER); return SH_BARRIER;
    case PLUMB_OP_TRIANGULAR_SOLVE: *n = LEN(SH_TRSM); return SH_TRSM;
    case PLUMB_OP_CHOLESKY: *n = LEN(SH_CHOL); return SH_CHOL;
    case PLUMB_OP_BATCH_NORM_INFERENCE: case PLUMB_OP_BATCH_NORM_TRAINING: case PLUMB_OP_BATCH_NORM_GRAD:
        *n = LEN(SH_BN);
        return SH_BN;
    case PLUMB_OP_FFT: *n = LEN(SH_FFT); return SH_FFT;
    case PLUMB_OP_WHILE: *n = LEN(SH_WHILE); return SH_WHILE;
    case PLUMB_OP_REDUCE_WINDOW: *n = LEN(SH_RWIN); return SH_RWIN;
    case PLUMB_OP_SELECT_AND_SCATTER: *n = LEN(SH_SAS); return SH_SAS;
    case PLUMB_OP_IF: *n = LEN(SH_IF); return SH_IF;
    case PLUMB_OP_CASE: *n = LEN(SH_CASE); return SH_CASE;
    case PLUMB_OP_MAP: *n = LEN(SH_MAP); return SH_MAP;
    case PLUMB_OP_SCAN: *n = LEN(SH_SCAN); return SH_SCAN;
    case PLUMB_OP_RAGGED_DOT: *n = LEN(SH_RAGGED); return SH_RAGGED;
    case PLUMB_OP_COMPOSITE: *n = LEN(SH_COMPOSITE); return SH_COMPOSITE;
    case PLUMB_OP_TUPLE: case PLUMB_OP_GET_TUPLE_ELEMENT: *n = LEN(SH_TUPLE); return SH_TUPLE;
    case PLUMB_OP_CONVOLUTION: *n = LEN(SH_CONV); return SH_CONV;
    case PLUMB_OP_DYNAMIC_CONV: *n = LEN(SH_DYNCONV); return SH_DYNCONV;
    default: break;
    }
    switch (oi->kind) {
    case PLUMB_KIND_ELEMENTWISE: *n = LEN(SH_EW); return SH_EW;
    case PLUMB_KIND_MOVEMENT:
    case PLUMB_KIND_REDUCTION: *n = LEN(SH_MOVE); return SH_MOVE;
    case PLUMB_KIND_CONTRACTION: *n = LEN(SH_DOT); return SH_DOT;
    case PLUMB_KIND_INDEXING: *n = LEN(SH_INDEX); return SH_INDEX;
    case PLUMB_KIND_RNG: *n = LEN(SH_TOPK); return SH_TOPK;
    default: *n = 0; return NULL;
    }
}

const char *const *conf_value_classes(plumb_opcode op, plumb_dtype t, uint32_t *n)
{
    /* results that do not depend on element values */
    if (op == PLUMB_OP_IOTA || op == PLUMB_OP_DYNAMIC_IOTA || op == PLUMB_OP_GET_DIMENSION_SIZE) {
        *n = LEN(V_NONE);
        return V_NONE;
    }
    if (plumb_op_get(op)->kind == PLUMB_KIND_RNG) { *n = LEN(V_RNG); return V_RNG; }
    if (op == PLUMB_OP_TRIANGULAR_SOLVE) { *n = LEN(V_TRSM); return V_TRSM; }
    if (op == PLUMB_OP_CHOLESKY) { *n = LEN(V_CHOL); return V_CHOL; }
    if (conf_op_batch_norm(op)) { *n = LEN(V_BN); return V_BN; }
    if (op == PLUMB_OP_FFT) { *n = LEN(V_FFT); return V_FFT; }
    if (plumb_dtype_is_float(t)) { *n = LEN(V_FLOAT); return V_FLOAT; }
    if (plumb_dtype_is_bool(t)) { *n = LEN(V_BOOL); return V_BOOL; }
    *n = LEN(V_INT);
    return V_INT;
}

/* The value class paired with the non-primary shape classes in the quick suite. */
static uint32_t default_value(plumb_dtype t, uint32_t nv)
{
    return plumb_dtype_is_float(t) && nv == LEN(V_FLOAT) ? 3 /* normal */ : 0;
}

/* Targets of convert (every type) and bitcast_convert (same bit width). */
uint32_t conf_convert_targets(plumb_opcode op, plumb_dtype src, plumb_dtype *out)
{
    uint32_t n = 0;
    for (int t = 0; t < PLUMB_DTYPE_COUNT; t++) {
        if (op == PLUMB_OP_BITCAST_CONVERT && plumb_dtype_get((plumb_dtype)t)->bits != plumb_dtype_get(src)->bits)
            continue;
        if (out) out[n] = (plumb_dtype)t;
        n++;
    }
    if (op != PLUMB_OP_CONVERT && op != PLUMB_OP_BITCAST_CONVERT) {
        if (out) out[0] = src;
        return 1;
    }
    return n;
}

/* Float operand, i1 result: is_finite and chlo's is_inf family. */
bool conf_gen_pred_op(plumb_opcode op)
{
    return op == PLUMB_OP_IS_FINITE || op == PLUMB_OP_IS_INF || op == PLUMB_OP_IS_POS_INF ||
           op == PLUMB_OP_IS_NEG_INF;
}

bool conf_gen_is_unary_float_ew(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    return oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity == 1 && plumb_dtype_is_float(t) &&
           op != PLUMB_OP_CONVERT && (oi->types & PLUMB_TY_FLOAT);
}

static bool is_binary_float_ew(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    return oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity == 2 && plumb_dtype_is_float(t);
}

/* ---- the case under construction ---------------------------------------------------- */

uint64_t conf_gen_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A tensor type; a negative dim is the polymorphic one of a "dyn_*" case,
 * written `?` with the bound CONF_POLY_BOUND, or twice it when -2 (a dim
 * that grows with the size, e.g. dynamic_pad's interior padding). */
static void ty(plumb_buf *b, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_buf_puts(b, "tensor<");
    bool dyn = false;
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] < 0) plumb_buf_puts(b, "?x");
        else plumb_buf_printf(b, "%lldx", (long long)dims[i]);
        dyn = dyn || dims[i] < 0;
    }
    plumb_buf_printf(b, "%s", plumb_dtype_name(t));
    if (dyn) {
        plumb_buf_puts(b, ", #stablehlo.bounds<");
        for (uint32_t i = 0; i < rank; i++) {
            if (dims[i] < 0) plumb_buf_printf(b, "%s%d", i ? ", " : "", CONF_POLY_BOUND * (int)-dims[i]);
            else plumb_buf_printf(b, "%s?", i ? ", " : "");
        }
        plumb_buf_puts(b, ">");
    }
    plumb_buf_puts(b, ">");
}

const char *conf_gen_tys(gen *g, plumb_dtype t, uint32_t rank, const int64_t *dims)
{
    plumb_buf b;
    plumb_buf_init(&b);
    ty(&b, t, rank, dims);
    const char *s = plumb_arena_strdup(g->out->arena, b.data ? b.data : "");
    plumb_buf_free(&b);
    if (!s) g->failed = true;
    return s ? s : "";
}

/* ---- values ------------------------------------------------------------------------- */

/* v's bits in float type t. On the FP8/FP6/FP4/E8M0 formats an infinity the
 * format lacks becomes its extreme finite value of that sign (E8M0: its
 * smallest or largest), so -inf still means "the identity of maximum" as a
 * reduction's init; everything else rounds once as convert does. */
uint64_t conf_gen_fbits(plumb_dtype t, double v)
{
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    if (f) {
        if (isinf(v) && f->nan != PLUMB_FPNAN_IEEE) {
            if (f->nan == PLUMB_FPNAN_E8M0) return v < 0 ? 0x00 : 0xFE;
            double m = plumb_small_max(f);
            return plumb_f64_to_small(f, v < 0 ? -m : m);
        }
        return plumb_f64_to_small(f, v);
    }
    switch (t) {
    case PLUMB_F16: return plumb_f64_to_f16(v);
    case PLUMB_BF16: return plumb_f64_to_bf16(v);
    case PLUMB_F32: return plumb_f32_bits((float)v);
    default: return plumb_f64_bits(v);
    }
}

/* The quiet-NaN bit of a float format; f8E8M0FNU has no mantissa field and none. */
uint64_t conf_gen_qbit(const plumb_dtype_info *di)
{
    return di->mant_bits ? 1ull << (di->mant_bits - 1) : 0;
}

/* Special values of float type t as bit patterns. */
uint32_t conf_float_specials(plumb_dtype t, uint64_t *out)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1);
    uint64_t expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    uint64_t quiet = conf_gen_qbit(di);
    uint64_t maxf = expm - 1;                  /* largest finite */
    uint64_t minn = 1ull << di->mant_bits;     /* smallest normal */
    uint64_t one = conf_gen_fbits(t, 1.0);
    uint64_t v[] = {0, sign, expm, expm | sign, expm | quiet, expm | quiet | sign | 1, expm | 1 /* signalling */,
                    1, 1 | sign, minn - 1, minn, minn | sign, maxf, maxf | sign, one, one | sign, one + 1, one - 1,
                    conf_gen_fbits(t, 0.5), conf_gen_fbits(t, 2.0), conf_gen_fbits(t, -3.0), conf_gen_fbits(t, 0.1)};
    uint32_t n = LEN(v);
    if (out) memcpy(out, v, sizeof v);
    return n;
}

uint64_t conf_gen_int_boundary(plumb_dtype t, uint64_t i)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t mask = di->bits == 64 ? ~0ull : (1ull << di->bits) - 1;
    uint64_t smin = plumb_dtype_is_signed(t) ? 1ull << (di->bits - 1) : 0;
    uint64_t smax = plumb_dtype_is_signed(t) ? smin - 1 : mask;
    uint64_t v[] = {0, 1, mask /* -1 or max */, smin, smax, smin + 1, smax - 1, 2, 7, mask - 6};
    return v[i % LEN(v)] & mask;
}

uint64_t conf_gen_random_bits(gen *g, unsigned bits)
{
    uint64_t r = ((uint64_t)gsl_rng_get(g->rng) << 32) ^ (uint64_t)gsl_rng_get(g->rng);
    return bits >= 64 ? r : r & ((1ull << bits) - 1);
}

uint64_t conf_gen_float_value(gen *g, plumb_dtype t, const char *vc, uint64_t i)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1);
    int emax = (1 << (di->exp_bits - 1)) - 1;
    if (!strcmp(vc, "special")) {
        uint64_t sp[32];
        uint32_t n = conf_float_specials(t, sp);
        return sp[i % n];
    }
    if (!strcmp(vc, "subnormal")) {
        uint64_t f = conf_gen_random_bits(g, di->mant_bits);
        if (i % 8 == 7) f = 0;
        return f | (gsl_rng_uniform(g->rng) < 0.5 ? sign : 0);
    }
    if (!strcmp(vc, "boundary")) {
        /* around overflow and underflow of the type and of exp/log */
        double lim[] = {ldexp(1.0, emax), log(ldexp(1.0, emax)) * 1.4426950408889634 * 0.6931471805599453,
                        -(emax + (double)di->mant_bits) * 0.6931471805599453, ldexp(1.0, 1 - emax),
                        1.0, 0.0, ldexp(1.0, di->mant_bits), M_PI / 2, M_PI};
        double base = lim[i % LEN(lim)];
        uint64_t b = conf_gen_fbits(t, base);
        int64_t off = (int64_t)(i / LEN(lim) % 5) - 2;
        b = (uint64_t)((int64_t)b + off);
        if ((b & ~sign) >= (((1ull << di->exp_bits) - 1) << di->mant_bits)) b = conf_gen_fbits(t, base);
        return b ^ ((i / 45) % 2 ? sign : 0);
    }
    if (!strcmp(vc, "normal")) return conf_gen_fbits(t, gsl_ran_gaussian(g->rng, 1.0));
    if (!strcmp(vc, "uniform")) return conf_gen_fbits(t, gsl_rng_uniform(g->rng) * 2.0 - 1.0);
    /* loguniform: every binade of normal numbers equally likely, random sign */
    double e = (1 - emax) + gsl_rng_uniform(g->rng) * (2.0 * emax - 1);
    double v = exp2(e);
    uint64_t b = conf_gen_fbits(t, v);
    if ((b & ~sign) >= (((1ull << di->exp_bits) - 1) << di->mant_bits)) b = conf_gen_fbits(t, 1.0);
    return b | (gsl_rng_uniform(g->rng) < 0.5 ? sign : 0);
}

void conf_gen_fill(gen *g, plumb_tensor *x, const char *vc)
{
    plumb_dtype t = x->dtype;
    uint64_t n = plumb_tensor_numel(x);
    /* the small types: every special value of the format first (the
     * wide types' value classes do not fit their codes), then random codes */
    uint64_t lsp[64];
    uint32_t nls = plumb_dtype_is_lowp(t) ? conf_lowp_specials(t, lsp) : 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b;
        if (nls) b = i < nls ? lsp[i] : conf_gen_random_bits(g, plumb_dtype_get(t)->bits);
        else if (plumb_dtype_is_float(t)) b = conf_gen_float_value(g, t, vc, i);
        else if (plumb_dtype_is_bool(t)) b = gsl_rng_uniform(g->rng) < 0.5;
        else if (!strcmp(vc, "boundary")) b = conf_gen_int_boundary(t, i);
        else b = conf_gen_random_bits(g, plumb_dtype_get(t)->bits);
        plumb_store_bits(t, x->data, i, b);
    }
}

/* Adds parameter %name of the given type, filled by value class vc (NULL:
 * integers in [lo, hi] for index operands). */
plumb_tensor *conf_gen_param(gen *g, const char *name, plumb_dtype t, uint32_t rank, const int64_t *dims,
                           const char *vc, int64_t lo, int64_t hi)
{
    if (g->failed || g->n_in >= 8 || rank > 4) { g->failed = true; return NULL; }
    int64_t cd[4];
    for (uint32_t i = 0; i < rank; i++) cd[i] = dims[i] < 0 ? g->dyn_n : dims[i];
    plumb_tensor *x = plumb_tensor_new(t, rank, cd, 0, g->d);
    if (!x) { g->failed = true; return NULL; }
    g->in[g->n_in++] = x;
    if (vc) conf_gen_fill(g, x, vc);
    else
        for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
            plumb_store_bits(t, x->data, i, (uint64_t)(lo + (int64_t)gsl_rng_uniform_int(g->rng, (unsigned long)(hi - lo + 1))));
    if (g->params.len) plumb_buf_puts(&g->params, ", ");
    plumb_buf_printf(&g->params, "%%%s: ", name);
    ty(&g->params, t, rank, dims);
    return x;
}

/* ---- finishing a case ----------------------------------------------------------------- */

static void reset_case(gen *g)
{
    for (uint32_t i = 0; i < g->n_in; i++) plumb_tensor_free(g->in[i]);
    g->n_in = 0;
    plumb_buf_free(&g->params);
    plumb_buf_free(&g->body);
    plumb_buf_init(&g->params);
    plumb_buf_init(&g->body);
    g->ret_types = NULL;
    g->post = NULL;
    g->dyn = false;
}

bool conf_gen_push_case(gen *g, const char *ret_names)
{
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    uint32_t ord = g->ordinal++;
    (void)ord;
    if (g->failed) { reset_case(g); return false; }
    if (!keep) { reset_case(g); return true; }
    plumb_buf text;
    plumb_buf_init(&text);
    plumb_buf_printf(&text, "func.func @main(%s) -> (%s) {\n%s  return %s : %s\n}\n%s", g->params.data ? g->params.data : "",
                     g->ret_types, g->body.data ? g->body.data : "", ret_names, g->ret_types, g->post ? g->post : "");
    if (text.failed) { plumb_buf_free(&text); reset_case(g); return false; }
    /* Every generated program must verify: a failure is a generator bug. */
    ir_module *m = ir_parse(text.data, text.len, "conformance case", NULL, g->d);
    bool ok = m && ir_verify(m, NULL, g->d);
    if (!ok) {
        char msg[sizeof g->d->msg];
        snprintf(msg, sizeof msg, "%s", g->d->msg);
        plumb_diag_clear(g->d);
        plumb_diag_set(g->d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "generated case %s/%s/%s/%s does not verify: %s\n%s",
                       plumb_op_short_name(g->op), plumb_dtype_name(g->t), g->shape, g->value, msg, text.data);
        g->failed = true;
    }
    ir_module_free(m);
    conf_cases *cs = g->out;
    if (ok && cs->n == cs->cap) {
        uint32_t nc = cs->cap ? cs->cap * 2 : 64;
        conf_case *nv = plumb_realloc(cs->v, sizeof *cs->v * cs->cap, sizeof *cs->v * nc);
        if (!nv) { ok = false; plumb_diag_set(g->d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory"); }
        else { cs->v = nv; cs->cap = nc; }
    }
    if (ok) {
        conf_case *c = &cs->v[cs->n];
        memset(c, 0, sizeof *c);
        const char *name = plumb_op_name(g->op), *dot = strchr(name, '.');
        if (dot && !strncmp(name, "stablehlo.", 10)) name = dot + 1;
        if (g->form)
            snprintf(c->id, sizeof c->id, "%s/%s/%s/%s/forms/%s", name, plumb_dtype_name(g->t), g->shape, g->value,
                     g->form);
        else if (g->opcross)
            snprintf(c->id, sizeof c->id, "%s/%s/%s/opcross/%s", name, plumb_dtype_name(g->t), g->shape, g->opcross);
        else if (g->target != g->t)
            snprintf(c->id, sizeof c->id, "%s/%s_to_%s/%s/%s/%u", name, plumb_dtype_name(g->t),
                     plumb_dtype_name(g->target), g->shape, g->value, g->rep);
        else
            snprintf(c->id, sizeof c->id, "%s/%s/%s/%s/%u", name, plumb_dtype_name(g->t), g->shape, g->value, g->rep);
        c->op = g->op;
        c->dtype = g->t;
        c->shape_class = g->shape;
        c->value_class = g->value;
        c->form = g->form;
        c->program = plumb_arena_strndup(cs->arena, text.data, text.len);
        c->inputs = plumb_arena_array(cs->arena, g->n_in ? g->n_in : 1, sizeof *c->inputs);
        c->polymorphic = g->dyn;
        /* The static form at this size is what the reference checks, for
         * every op that has one (the dynamic ops run as written). */
        bool has_static = !conf_op_dynamic(g->op);
        if (g->dyn && has_static && c->program)
            c->check_program = conf_poly_concretize(cs->arena, c->program, g->dyn_n);
        if (!c->program || !c->inputs || (g->dyn && has_static && !c->check_program)) {
            ok = false;
            plumb_diag_set(g->d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory");
        } else {
            for (uint32_t i = 0; i < g->n_in; i++) c->inputs[i] = g->in[i];
            c->n_inputs = g->n_in;
            g->n_in = 0; /* owned by the case list now */
            cs->n++;
        }
    }
    plumb_buf_free(&text);
    reset_case(g);
    return ok;
}

/* ---- per-op programs ---------------------------------------------------------------- */

shp conf_gen_ew_shape(const char *sc)
{
    if (!strncmp(sc, "dyn_", 4)) return (shp){2, {-1, 3}};  /* tensor<?x3xT, #stablehlo.bounds<16, ?>> */
    if (!strcmp(sc, "scalar")) return (shp){0, {0}};
    if (!strcmp(sc, "empty")) return (shp){2, {0, 3}};
    if (!strcmp(sc, "one")) return (shp){1, {1}};
    if (!strcmp(sc, "wide")) return (shp){2, {2, 1031}};
    return (shp){2, {7, 13}}; /* odd, broadcast, dimnums */
}

const char *const conf_gen_cmp_dirs[6] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

/* An operand of an elementwise op: a parameter, or in the broadcast class
 * the last operand broadcast from its trailing dimension. */
void conf_gen_ew_operand(gen *g, const char *name, plumb_dtype t, shp s, bool bcast, const char *vc)
{
    if (!bcast) { conf_gen_param(g, name, t, s.rank, s.dims, vc, 0, 0); return; }
    char pn[16];
    snprintf(pn, sizeof pn, "%s_in", name);
    conf_gen_param(g, pn, t, 1, &s.dims[1], vc, 0, 0);
    plumb_buf_printf(&g->body, "  %%%s = stablehlo.broadcast_in_dim %%%s, dims = [1] : (%s) -> %s\n", name, pn,
                     conf_gen_tys(g, t, 1, &s.dims[1]), conf_gen_tys(g, t, s.rank, s.dims));
}

/* A case with two results: its result types "A, B", in the case's arena. */
void conf_gen_set_ret_types2(gen *g, const char *a, const char *b)
{
    char *rt = plumb_arena_array(g->out->arena, strlen(a) + strlen(b) + 3, 1);
    if (rt)
        sprintf(rt, "%s, %s", a, b);
    else
        g->failed = true;
    g->ret_types = rt ? rt : "";
}


static bool gen_rng(gen *g)
{
    shp s = conf_gen_ew_shape(g->shape);
    int64_t two = 2;
    conf_gen_param(g, "s", PLUMB_UI64, 1, &two, "uniform", 0, 0);
    const char *O = conf_gen_tys(g, g->t, s.rank, s.dims), *S = conf_gen_tys(g, PLUMB_UI64, 1, &two);
    plumb_buf_printf(&g->body, "  %%o, %%v = stablehlo.rng_bit_generator %%s, algorithm = %s : (%s) -> (%s, %s)\n",
                     !strcmp(g->value, "philox") ? "PHILOX" : "THREE_FRY", S, S, O);
    conf_gen_set_ret_types2(g, S, O);
    return conf_gen_push_case(g, "%o, %v");
}

/* One depth case: seeded like every other case, from (seed, op, dtype, ordinal). */
bool conf_gen_depth_case(gen *g, plumb_dtype t, plumb_dtype target, const char *vc, bool (*fn)(gen *))
{
    g->t = t; g->target = target; g->shape = "odd"; g->value = vc; g->rep = 0;
    gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    return fn(g);
}
/* triangular_solve and cholesky (docs/spec/linalg.md): the shape class
 * picks the attributes and shapes, gen_linalg.c the matrix for the value
 * class; right-hand sides are uniform in [-1, 1). Shapes: 5x5 systems with
 * 3 right-hand sides, a 2x3 batch of 4x4 systems with 2, empty 0x0 with 3;
 * 4x4 factorizations, a 2x3 batch of them, 1x1 and 0x0. */
static bool gen_linalg(gen *g)
{
    const char *sc = g->shape;
    shp sa = {2, {5, 5}}, sb = {2, {5, 3}};
    const char *X;
    if (g->op == PLUMB_OP_CHOLESKY) {
        int64_t n = !strcmp(sc, "one") ? 1 : !strcmp(sc, "empty") ? 0 : 4;
        sa = (shp){2, {n, n}};
        if (!strcmp(sc, "batch")) sa = (shp){4, {2, 3, n, n}};
        /* complex and the small formats: gen_linalg.c writes every value
         * (conf_gen_fill's classes do not cover them) */
        bool own = plumb_dtype_is_complex(g->t) || plumb_dtype_is_lowp(g->t);
        plumb_tensor *a = conf_gen_param(g, "a", g->t, sa.rank, sa.dims, own ? NULL : "uniform", 0, 0);
        if (a && !conf_linalg_fill(g->op, g->value, a, g->rng)) g->failed = true;
        X = conf_gen_tys(g, g->t, sa.rank, sa.dims);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.cholesky %%a%s : %s\n", strcmp(sc, "upper") ? ", lower = true" : "", X);
        g->ret_types = X;
        return conf_gen_push_case(g, "%r");
    }
    bool left = true, lower = true, unit = false;
    const char *tr = "NO_TRANSPOSE";
    if (!strcmp(sc, "left_upper_trans_unit")) { lower = false; unit = true; tr = "TRANSPOSE"; }
    else if (!strcmp(sc, "right_lower_adjoint")) { left = false; tr = "ADJOINT"; sb = (shp){2, {3, 5}}; }
    else if (!strcmp(sc, "right_upper_unit")) { left = false; lower = false; unit = true; sb = (shp){2, {3, 5}}; }
    else if (!strcmp(sc, "batch")) { sa = (shp){4, {2, 3, 4, 4}}; sb = (shp){4, {2, 3, 4, 2}}; tr = "TRANSPOSE"; }
    else if (!strcmp(sc, "empty")) { sa = (shp){2, {0, 0}}; sb = (shp){2, {0, 3}}; }
    bool own = plumb_dtype_is_complex(g->t) || plumb_dtype_is_lowp(g->t);
    plumb_tensor *a = conf_gen_param(g, "a", g->t, sa.rank, sa.dims, own ? NULL : "uniform", 0, 0);
    if (a && !conf_linalg_fill(g->op, g->value, a, g->rng)) g->failed = true;
    plumb_tensor *b = conf_gen_param(g, "b", g->t, sb.rank, sb.dims, own ? NULL : "uniform", 0, 0);
    if (b && own) conf_linalg_fill_rhs(b, g->rng);
    const char *A = conf_gen_tys(g, g->t, sa.rank, sa.dims);
    X = conf_gen_tys(g, g->t, sb.rank, sb.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.triangular_solve\"(%%a, %%b) <{left_side = %s, lower = %s, "
                     "transpose_a = #stablehlo<transpose %s>, unit_diagonal = %s}> : (%s, %s) -> %s\n",
                     left ? "true" : "false", lower ? "true" : "false", tr, unit ? "true" : "false", A, X, X);
    g->ret_types = X;
    return conf_gen_push_case(g, "%r");
}

/* fft cases (docs/spec/fft.md, "Conformance"); g->t is the component type
 * (the operand's for RFFT). Shapes: fft1 3x16 [16]; ifft1 2x12 [12]; rfft1
 * 4x10 -> 4x6 [10]; irfft1 3x9 -> 3x16 [16]; fft2 2x6x5 [6, 5]; ifft3 4x3x8
 * [4, 3, 8]; rfft2 3x8x7 -> 3x8x4 [8, 7]; irfft3 2x3x4x5 -> 2x3x4x8 [3, 4, 8];
 * prime 2x97 [97] (an odd prime length); empty 0x8 [8]. */
static bool gen_fft(gen *g)
{
    const char *sc = g->shape;
    static const struct { const char *name, *type; uint32_t rank, k; int64_t dims[4], len[3]; } F[] = {
        {"fft1", "FFT", 2, 1, {3, 16}, {16}},          {"ifft1", "IFFT", 2, 1, {2, 12}, {12}},
        {"rfft1", "RFFT", 2, 1, {4, 10}, {10}},        {"irfft1", "IRFFT", 2, 1, {3, 9}, {16}},
        {"fft2", "FFT", 3, 2, {2, 6, 5}, {6, 5}},      {"ifft3", "IFFT", 3, 3, {4, 3, 8}, {4, 3, 8}},
        {"rfft2", "RFFT", 3, 2, {3, 8, 7}, {8, 7}},    {"irfft3", "IRFFT", 4, 3, {2, 3, 4, 5}, {3, 4, 8}},
        {"prime", "FFT", 2, 1, {2, 97}, {97}},         {"empty", "FFT", 2, 1, {0, 8}, {8}},
    };
    size_t i = 0;
    while (i < LEN(F) && strcmp(F[i].name, sc)) i++;
    if (i == LEN(F)) { g->failed = true; return false; }
    bool rfft = !strcmp(F[i].type, "RFFT"), irfft = !strcmp(F[i].type, "IRFFT");
    plumb_dtype ct = g->t, cx;
    if (!plumb_dtype_complex_of(ct, &cx)) { g->failed = true; return false; }
    int64_t rd[4];
    memcpy(rd, F[i].dims, sizeof rd);
    uint32_t R = F[i].rank;
    if (rfft) rd[R - 1] = F[i].dims[R - 1] / 2 + 1;
    if (irfft) rd[R - 1] = F[i].len[F[i].k - 1];
    plumb_dtype xt = rfft ? ct : cx, yt = irfft ? ct : cx;
    plumb_tensor *a = conf_gen_param(g, "a", xt, R, F[i].dims, NULL, 0, 0);
    if (a && !conf_fft_fill(g->value, a, g->rng)) g->failed = true;
    const char *X = conf_gen_tys(g, xt, R, F[i].dims), *Y = conf_gen_tys(g, yt, R, rd);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.fft %%a, type = %s, length = [", F[i].type);
    for (uint32_t d = 0; d < F[i].k; d++) plumb_buf_printf(&g->body, "%s%lld", d ? ", " : "", (long long)F[i].len[d]);
    plumb_buf_printf(&g->body, "] : (%s) -> %s\n", X, Y);
    g->ret_types = Y;
    return conf_gen_push_case(g, "%r");
}

/* batch norm cases (docs/spec/batchnorm.md, "Conformance"): the shape class
 * "rR_fF" is a rank-R operand (6x5, 3x4x5, 2x3x4x3) with feature_index F;
 * conformance/gen_batchnorm.c fills the values for the value class; eps
 * cycles through 1e-5, 1e-3 and 0.5 with the case (0.5 for the constant
 * class, whose variance is 0). */
static bool gen_batch_norm(gen *g)
{
    static const int64_t dims[3][4] = {{6, 5}, {3, 4, 5}, {2, 3, 4, 3}};
    static const char *const eps[3] = {"1.000000e-05", "1.000000e-03", "5.000000e-01"};
    uint32_t R = (uint32_t)(g->shape[1] - '0');
    int64_t fi = g->shape[4] - '0';
    if (R < 2 || R > 4 || fi < 0 || fi >= R) { g->failed = true; return false; }
    const int64_t *D = dims[R - 2];
    int64_t F = D[fi];
    bool train = g->op == PLUMB_OP_BATCH_NORM_TRAINING, inf = g->op == PLUMB_OP_BATCH_NORM_INFERENCE;
    static const char *const nm_inf[] = {"x", "scale", "offset", "mean", "variance"};
    static const char *const nm_grad[] = {"x", "scale", "mean", "variance", "grad_output"};
    uint32_t n = train ? 3 : 5;
    plumb_tensor *in[5];
    for (uint32_t i = 0; i < n; i++) {
        bool full = i == 0 || (!inf && !train && i == 4);
        in[i] = conf_gen_param(g, train || inf ? nm_inf[i] : nm_grad[i], g->t, full ? R : 1, full ? D : &F, "uniform", 0, 0);
        if (!in[i]) return conf_gen_push_case(g, "%r");
    }
    if (!conf_bn_fill(g->op, g->value, fi, in, n, g->rng)) g->failed = true;
    const char *X = conf_gen_tys(g, g->t, R, D), *V = conf_gen_tys(g, g->t, 1, &F);
    const char *e = !strcmp(g->value, "constant") ? eps[2] : eps[(g->ordinal + g->rep) % 3];
    plumb_buf_printf(&g->body, "  %%r%s = \"%s\"(", inf ? "" : ":3", plumb_op_name(g->op));
    for (uint32_t i = 0; i < n; i++)
        plumb_buf_printf(&g->body, "%s%%%s", i ? ", " : "", train || inf ? nm_inf[i] : nm_grad[i]);
    plumb_buf_printf(&g->body, ") <{epsilon = %s : f32, feature_index = %lld : i64}> : (", e, (long long)fi);
    for (uint32_t i = 0; i < n; i++)
        plumb_buf_printf(&g->body, "%s%s", i ? ", " : "", i == 0 || (!inf && !train && i == 4) ? X : V);
    if (inf) {
        plumb_buf_printf(&g->body, ") -> %s\n", X);
        g->ret_types = X;
        return conf_gen_push_case(g, "%r");
    }
    plumb_buf_printf(&g->body, ") -> (%s, %s, %s)\n", X, V, V);
    char *rt = plumb_arena_array(g->out->arena, strlen(X) + 2 * strlen(V) + 5, 1);
    if (!rt) { g->failed = true; return conf_gen_push_case(g, "%r#0"); }
    sprintf(rt, "%s, %s, %s", X, V, V);
    g->ret_types = rt;
    return conf_gen_push_case(g, "%r#0, %r#1, %r#2");
}

/* The "dyn_*" family of an op of static form: each accepted type at the
 * sizes 0, 1, odd and the bound, the float ones with the special values
 * (convert to one target: f32, or f64 from f32). */
static bool gen_poly(gen *g)
{
    if (!conf_op_poly(g->op)) return true;
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) continue;   /* complex: not generated yet */
        uint32_t nv;
        const char *const *vs = conf_value_classes(g->op, t, &nv);
        const char *vc = plumb_dtype_is_float(t) && nv == LEN(V_FLOAT) ? "special" : vs[0];
        plumb_dtype target = t;
        if (g->op == PLUMB_OP_CONVERT) target = t == PLUMB_F32 ? PLUMB_F64 : PLUMB_F32;
        for (uint32_t k = 0; ok && k < CONF_POLY_N_SIZES; k++) ok = conf_gen_one_case(g, t, conf_poly_classes[k], vc, 0, target);
    }
    return ok && !g->failed;
}

/* ---- convolution on complex and the small types (conformance/gen_conv_types.c) ----
 * Every type, shape and value class conf_conv_types_* lists, after every
 * other family; conf_gen_conv and conf_gen_dynconv write the programs. */
static bool conv_types_case(gen *g)
{
    g->shape = g->conv_shape;
    return g->op == PLUMB_OP_DYNAMIC_CONV ? conf_gen_dynconv(g) : conf_gen_conv(g);
}

static bool gen_conv_types(gen *g)
{
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        uint32_t ns, nv;
        const char *const *sh = conf_conv_types_shapes(g->op, (plumb_dtype)ti, &ns);
        const char *const *vs = conf_conv_types_values((plumb_dtype)ti, &nv);
        for (uint32_t s = 0; ok && s < ns; s++)
            for (uint32_t v = 0; ok && v < nv; v++) {
                /* conf_gen_depth_case names the shape "odd": set it in the case function */
                g->conv_shape = sh[s];
                ok = conf_gen_depth_case(g, (plumb_dtype)ti, (plumb_dtype)ti, vs[v], conv_types_case);
            }
    }
    g->conv_shape = NULL;
    return ok;
}

/* ---- dot_general's algorithm (docs/spec/dotalg.md, "Conformance") -------------------
 * One "odd" dot (7x13 · 13x5) per entry of gen_dotalg.c's list, its value
 * class the algorithm's name, after every other family. */
static bool dotalg_case(gen *g)
{
    const conf_dotalg_case *c = NULL;
    for (size_t i = 0; i < conf_dotalg_n_cases && !c; i++)
        if (conf_dotalg_cases[i].operand == g->t && !strcmp(conf_dotalg_cases[i].name, g->value))
            c = &conf_dotalg_cases[i];
    if (!c) { g->failed = true; return conf_gen_push_case(g, "%r"); }
    int64_t ld[2] = {7, 13}, rd[2] = {13, 5}, od[2] = {7, 5};
    plumb_tensor *x = conf_gen_param(g, "x", g->t, 2, ld, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", g->t, 2, rd, NULL, 0, 0);
    if (x && y && (!conf_dotalg_fill(x, g->rng) || !conf_dotalg_fill(y, g->rng))) g->failed = true;
    char attr[400];
    conf_dotalg_attr(c, attr, sizeof attr);
    const char *U = conf_gen_tys(g, g->t, 2, od);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0], %s : (%s, %s) -> %s\n",
                     attr, conf_gen_tys(g, g->t, 2, ld), conf_gen_tys(g, g->t, 2, rd), U);
    g->ret_types = U;
    return conf_gen_push_case(g, "%r");
}

static bool gen_dotalg(gen *g)
{
    bool ok = true;
    for (size_t i = 0; ok && g->op == PLUMB_OP_DOT_GENERAL && i < conf_dotalg_n_cases; i++)
        ok = conf_gen_depth_case(g, conf_dotalg_cases[i].operand, conf_dotalg_cases[i].operand, conf_dotalg_cases[i].name,
                        dotalg_case);
    return ok;
}


/* One case of the plan: seeds the generator from (seed, op, dtype, ordinal)
 * so that a case's bytes do not depend on sharding or on other cases. */
bool conf_gen_one_case(gen *g, plumb_dtype t, const char *sc, const char *vc, uint32_t rep, plumb_dtype target)
{
    g->t = t;
    g->target = target;
    g->shape = sc;
    g->value = vc;
    g->rep = rep;
    gsl_rng_set(g->rng, (unsigned long)(conf_gen_mix64(g->seed ^ conf_gen_mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    g->dyn_n = poly_size(sc);
    g->dyn = g->dyn_n >= 0;
    if (conf_op_dynamic(g->op)) return conf_gen_dynamic(g);
    if (g->op == PLUMB_OP_OPTIMIZATION_BARRIER) return conf_gen_barrier(g);
    if (g->op == PLUMB_OP_WHILE) return conf_gen_while(g);
    if (g->op == PLUMB_OP_REDUCE_WINDOW || g->op == PLUMB_OP_SELECT_AND_SCATTER) return conf_gen_window(g);
    if (g->op == PLUMB_OP_IF || g->op == PLUMB_OP_CASE) return conf_gen_branches(g);
    if (g->op == PLUMB_OP_MAP) return conf_gen_map(g);
    if (g->op == PLUMB_OP_SCAN) return conf_gen_scan(g);
    if (g->op == PLUMB_OP_RAGGED_DOT) return conf_gen_ragged(g);
    if (g->op == PLUMB_OP_COMPOSITE) return conf_gen_composite(g);
    if (g->op == PLUMB_OP_TUPLE || g->op == PLUMB_OP_GET_TUPLE_ELEMENT) return conf_gen_tuple(g);
    if (conf_op_batch_norm(g->op)) return gen_batch_norm(g);
    if (g->op == PLUMB_OP_TRIANGULAR_SOLVE || g->op == PLUMB_OP_CHOLESKY) return gen_linalg(g);
    if (g->op == PLUMB_OP_FFT) return gen_fft(g);
    switch (plumb_op_get(g->op)->kind) {
    case PLUMB_KIND_ELEMENTWISE: return conf_gen_elementwise(g, target);
    case PLUMB_KIND_MOVEMENT: return conf_gen_movement(g, target);
    case PLUMB_KIND_REDUCTION: return conf_gen_reduce(g, PLUMB_OP_ADD);
    case PLUMB_KIND_CONTRACTION:
        if (g->op == PLUMB_OP_DYNAMIC_CONV) return conf_gen_dynconv(g);
        return g->op == PLUMB_OP_CONVOLUTION ? conf_gen_conv(g) : conf_gen_dot(g);
    case PLUMB_KIND_INDEXING: return conf_gen_indexing(g);
    case PLUMB_KIND_RNG: return gen_rng(g);
    default: return true;
    }
}

/* ---- triangular_solve and cholesky on complex and the small float formats
 * (docs/spec/linalg.md, "Conformance") ----
 * Every type conf_linalg_family_type names, the real types' shape and value
 * classes (quick: the first shape x every class, the other shapes x the
 * first class; full: every pair), one repetition, after every other family. */
static bool gen_linalg_types(gen *g)
{
    if (g->op != PLUMB_OP_TRIANGULAR_SOLVE && g->op != PLUMB_OP_CHOLESKY) return true;
    uint32_t ns, nv;
    const char *const *sh = conf_shape_classes(g->op, &ns);
    const char *const *vs = conf_value_classes(g->op, PLUMB_F32, &nv);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!conf_linalg_family_type(t)) continue;
        for (uint32_t s = 0; ok && s < ns; s++)
            for (uint32_t v = 0; ok && v < nv; v++)
                if (g->suite == CONF_SUITE_FULL || s == 0 || v == 0) ok = conf_gen_one_case(g, t, sh[s], vs[v], 0, t);
    }
    return ok;
}

void conf_cases_free(conf_cases *cs)
{
    if (!cs) return;
    for (uint32_t i = 0; i < cs->n; i++) {
        for (uint32_t j = 0; j < cs->v[i].n_inputs; j++) plumb_tensor_free(cs->v[i].inputs[j]);
    }
    plumb_free(cs->v, sizeof *cs->v * cs->cap);
    plumb_arena_free(cs->arena);
    memset(cs, 0, sizeof *cs);
}

bool conf_generate(plumb_opcode op, conf_suite suite, uint64_t seed, uint32_t shard_index, uint32_t shard_count,
                   conf_cases *out, plumb_diag *d)
{
    memset(out, 0, sizeof *out);
    if (op >= PLUMB_OP_COUNT || (shard_count && shard_index >= shard_count)) {
        plumb_diag_set(d, PLUMB_ERR_USAGE, (plumb_loc){0, 0}, "conf_generate: bad op or shard %u/%u", shard_index,
                       shard_count);
        return false;
    }
    out->arena = plumb_arena_new(0);
    if (!out->arena) return plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory"), false;
    if (!conf_op_generated(op)) return true;
    gen g;
    memset(&g, 0, sizeof g);
    g.out = out;
    g.op = op;
    g.suite = suite;
    g.seed = seed;
    g.shard_index = shard_index;
    g.shard_count = shard_count;
    g.d = d;
    g.rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!g.rng) return plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory"), false;
    plumb_buf_init(&g.params);
    plumb_buf_init(&g.body);
    const plumb_op_info *oi = plumb_op_get(op);
    uint32_t ns;
    const char *const *sh = conf_shape_classes(op, &ns);
    uint32_t reps = suite == CONF_SUITE_FULL ? 3 : 1;
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) continue;   /* complex: not generated yet */
        uint32_t nv;
        const char *const *vs = conf_value_classes(op, t, &nv);
        plumb_dtype targets[PLUMB_DTYPE_COUNT];
        uint32_t nt = conf_convert_targets(op, t, targets);
        for (uint32_t k = 0; ok && k < nt; k++) {
            for (uint32_t s = 0; ok && s < ns; s++) {
                for (uint32_t v = 0; ok && v < nv; v++) {
                    bool planned = suite == CONF_SUITE_FULL || s == 0 || v == default_value(t, nv);
                    for (uint32_t r = 0; ok && planned && r < reps; r++)
                        ok = conf_gen_one_case(&g, t, sh[s], vs[v], r, targets[k]);
                }
            }
        }
        /* extras, the same in both suites */
        if (ok && op == PLUMB_OP_REDUCE) {
            static const plumb_opcode bodies[] = {PLUMB_OP_MAXIMUM, PLUMB_OP_MULTIPLY};
            for (uint32_t k = 0; ok && k < 2; k++) {
                g.t = t; g.target = t; g.shape = k == 0 ? "body_maximum" : "body_multiply";
                g.value = plumb_dtype_is_float(t) ? "normal" : vs[0];
                g.rep = 0;
                gsl_rng_set(g.rng, (unsigned long)(conf_gen_mix64(seed ^ conf_gen_mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = conf_gen_reduce(&g, bodies[k]);
                else g.ordinal++;
            }
        }
        /* padded max and min windows over one-signed values: the padding
         * must fold the init value, not 0 (docs/spec/window.md) */
        if (ok && op == PLUMB_OP_REDUCE_WINDOW) {
            for (uint32_t k = 0; ok && k < 2; k++) {
                g.t = t; g.target = t; g.shape = k == 0 ? "padmax_neg" : "padmin_pos";
                g.value = plumb_dtype_is_float(t) ? "normal" : vs[0];
                g.rep = 0;
                gsl_rng_set(g.rng, (unsigned long)(conf_gen_mix64(seed ^ conf_gen_mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = conf_gen_window(&g);
                else g.ordinal++;
            }
        }
        if (ok && (t == PLUMB_F16 || t == PLUMB_BF16) && conf_gen_is_unary_float_ew(op, t)) {
            g.t = t; g.target = t; g.shape = "odd"; g.value = "exhaustive"; g.rep = 0;
            bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
            if (keep) ok = conf_gen_exhaustive16(&g);
            else g.ordinal++;
        }
        if (ok && is_binary_float_ew(op, t)) {
            static const char *names[] = {"specials_x_specials", "specials_x_random", "stratified"};
            for (int w = 0; ok && w < 3; w++) {
                g.t = t; g.target = t; g.shape = "odd"; g.value = names[w]; g.rep = 0;
                gsl_rng_set(g.rng, (unsigned long)(conf_gen_mix64(seed ^ conf_gen_mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = conf_gen_binary_sweep(&g, w);
                else g.ordinal++;
            }
        }
    }
    if (ok) ok = conf_gen_depth(&g);
    if (ok) ok = conf_gen_forms(&g);
    if (ok) ok = conf_gen_opcross(&g);
    if (ok) ok = gen_poly(&g);
    if (ok) ok = conf_gen_complex(&g);
    if (ok) ok = conf_gen_lowp(&g);
    if (ok) ok = conf_gen_complex_ops(&g);
    if (ok) ok = gen_dotalg(&g);
    if (ok) ok = conf_gen_complex_sum(&g);
    if (ok) ok = gen_conv_types(&g);
    if (ok) ok = gen_linalg_types(&g);
    if (ok) ok = conf_gen_lowp_ops(&g);
    if (ok) ok = conf_gen_complex_more(&g);
    if (ok) ok = conf_gen_cconvert(&g);   /* complex<f32> <-> complex<f64> (gen_cconvert.c) */
    if (ok) ok = conf_gen_sweeps(&g);     /* every pattern where no family had it (gen_sweeps.c) */
    if (ok) ok = conf_gen_sizes(&g);      /* sizes where backends change strategy (gen_sizes.c) */
    reset_case(&g);
    plumb_buf_free(&g.params);
    plumb_buf_free(&g.body);
    gsl_rng_free(g.rng);
    if (!ok) {
        if (d->code == PLUMB_OK) plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: case generation failed");
        conf_cases_free(out);
        return false;
    }
    return true;
}
