/* Case generators: every op of the table × accepted element type × shape
 * class × value class, deterministic for a seed (docs/conformance.md).
 * Which shape and value classes an op gets is decided by its kind and
 * opcode (conf_shape_classes, conf_value_classes), never by a list of op
 * names; manifest.c counts the same plan with its own arithmetic. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>

#include "conf.h"
#include "batchnorm_bound.h"
#include "fft_bound.h"
#include "conv_types.h"
#include "linalg_bound.h"
#include "dotalg_gen.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"

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
/* composite: its decomposition over the case's shape: odd, scalar, empty, wide */
static const char *const SH_COMPOSITE[] = {"odd", "scalar", "empty", "wide"};
/* tuple, get_tuple_element: a nested tuple of the case's shape (gen_tuple) */
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

#define LEN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

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
        op == PLUMB_OP_MAP || op == PLUMB_OP_COMPOSITE || op == PLUMB_OP_TUPLE || op == PLUMB_OP_GET_TUPLE_ELEMENT)
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
static bool pred_op(plumb_opcode op)
{
    return op == PLUMB_OP_IS_FINITE || op == PLUMB_OP_IS_INF || op == PLUMB_OP_IS_POS_INF ||
           op == PLUMB_OP_IS_NEG_INF;
}

static bool is_unary_float_ew(plumb_opcode op, plumb_dtype t)
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

typedef struct gen {
    conf_cases *out;
    plumb_opcode op;
    conf_suite suite;
    uint64_t seed;
    uint32_t shard_index, shard_count;
    uint32_t ordinal;          /* cases planned so far (before sharding) */
    plumb_diag *d;
    gsl_rng *rng;
    /* current case */
    plumb_dtype t, target;     /* primary element type; convert's result type (else t) */
    const char *shape, *value;
    uint32_t rep;
    plumb_buf params, body;
    const char *ret_types;
    plumb_tensor *in[8];
    uint32_t n_in;
    const char *form;          /* attribute form of a "forms" case (arena), else NULL */
    bool dyn;                  /* a polymorphic ("dyn_*") case: dims < 0 in types are `?` */
    int64_t dyn_n;             /* ... and the size they have in the inputs */
    const char *opcross;       /* "<A>_<B>" of an operand-crossed dot case (static), else NULL */
    const char *post;          /* functions after @main (a composite's decomposition, arena), else NULL */
    const char *conv_shape;    /* the conv-types family's shape class (static), else NULL */
    bool failed;
} gen;

static uint64_t mix64(uint64_t x)
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

static const char *tys(gen *g, plumb_dtype t, uint32_t rank, const int64_t *dims)
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
static uint64_t fbits(plumb_dtype t, double v)
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
static uint64_t qbit(const plumb_dtype_info *di)
{
    return di->mant_bits ? 1ull << (di->mant_bits - 1) : 0;
}

/* Special values of float type t as bit patterns. */
uint32_t conf_float_specials(plumb_dtype t, uint64_t *out)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1);
    uint64_t expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    uint64_t quiet = qbit(di);
    uint64_t maxf = expm - 1;                  /* largest finite */
    uint64_t minn = 1ull << di->mant_bits;     /* smallest normal */
    uint64_t one = fbits(t, 1.0);
    uint64_t v[] = {0, sign, expm, expm | sign, expm | quiet, expm | quiet | sign | 1, expm | 1 /* signalling */,
                    1, 1 | sign, minn - 1, minn, minn | sign, maxf, maxf | sign, one, one | sign, one + 1, one - 1,
                    fbits(t, 0.5), fbits(t, 2.0), fbits(t, -3.0), fbits(t, 0.1)};
    uint32_t n = LEN(v);
    if (out) memcpy(out, v, sizeof v);
    return n;
}

static uint64_t int_boundary(plumb_dtype t, uint64_t i)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t mask = di->bits == 64 ? ~0ull : (1ull << di->bits) - 1;
    uint64_t smin = plumb_dtype_is_signed(t) ? 1ull << (di->bits - 1) : 0;
    uint64_t smax = plumb_dtype_is_signed(t) ? smin - 1 : mask;
    uint64_t v[] = {0, 1, mask /* -1 or max */, smin, smax, smin + 1, smax - 1, 2, 7, mask - 6};
    return v[i % LEN(v)] & mask;
}

static uint64_t random_bits(gen *g, unsigned bits)
{
    uint64_t r = ((uint64_t)gsl_rng_get(g->rng) << 32) ^ (uint64_t)gsl_rng_get(g->rng);
    return bits >= 64 ? r : r & ((1ull << bits) - 1);
}

static uint64_t float_value(gen *g, plumb_dtype t, const char *vc, uint64_t i)
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
        uint64_t f = random_bits(g, di->mant_bits);
        if (i % 8 == 7) f = 0;
        return f | (gsl_rng_uniform(g->rng) < 0.5 ? sign : 0);
    }
    if (!strcmp(vc, "boundary")) {
        /* around overflow and underflow of the type and of exp/log */
        double lim[] = {ldexp(1.0, emax), log(ldexp(1.0, emax)) * 1.4426950408889634 * 0.6931471805599453,
                        -(emax + (double)di->mant_bits) * 0.6931471805599453, ldexp(1.0, 1 - emax),
                        1.0, 0.0, ldexp(1.0, di->mant_bits), M_PI / 2, M_PI};
        double base = lim[i % LEN(lim)];
        uint64_t b = fbits(t, base);
        int64_t off = (int64_t)(i / LEN(lim) % 5) - 2;
        b = (uint64_t)((int64_t)b + off);
        if ((b & ~sign) >= (((1ull << di->exp_bits) - 1) << di->mant_bits)) b = fbits(t, base);
        return b ^ ((i / 45) % 2 ? sign : 0);
    }
    if (!strcmp(vc, "normal")) return fbits(t, gsl_ran_gaussian(g->rng, 1.0));
    if (!strcmp(vc, "uniform")) return fbits(t, gsl_rng_uniform(g->rng) * 2.0 - 1.0);
    /* loguniform: every binade of normal numbers equally likely, random sign */
    double e = (1 - emax) + gsl_rng_uniform(g->rng) * (2.0 * emax - 1);
    double v = exp2(e);
    uint64_t b = fbits(t, v);
    if ((b & ~sign) >= (((1ull << di->exp_bits) - 1) << di->mant_bits)) b = fbits(t, 1.0);
    return b | (gsl_rng_uniform(g->rng) < 0.5 ? sign : 0);
}

static void fill(gen *g, plumb_tensor *x, const char *vc)
{
    plumb_dtype t = x->dtype;
    uint64_t n = plumb_tensor_numel(x);
    /* the small types: every special value of the format first (the
     * wide types' value classes do not fit their codes), then random codes */
    uint64_t lsp[64];
    uint32_t nls = plumb_dtype_is_lowp(t) ? conf_lowp_specials(t, lsp) : 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b;
        if (nls) b = i < nls ? lsp[i] : random_bits(g, plumb_dtype_get(t)->bits);
        else if (plumb_dtype_is_float(t)) b = float_value(g, t, vc, i);
        else if (plumb_dtype_is_bool(t)) b = gsl_rng_uniform(g->rng) < 0.5;
        else if (!strcmp(vc, "boundary")) b = int_boundary(t, i);
        else b = random_bits(g, plumb_dtype_get(t)->bits);
        plumb_store_bits(t, x->data, i, b);
    }
}

/* Adds parameter %name of the given type, filled by value class vc (NULL:
 * integers in [lo, hi] for index operands). */
static plumb_tensor *param(gen *g, const char *name, plumb_dtype t, uint32_t rank, const int64_t *dims,
                           const char *vc, int64_t lo, int64_t hi)
{
    if (g->failed || g->n_in >= 8 || rank > 4) { g->failed = true; return NULL; }
    int64_t cd[4];
    for (uint32_t i = 0; i < rank; i++) cd[i] = dims[i] < 0 ? g->dyn_n : dims[i];
    plumb_tensor *x = plumb_tensor_new(t, rank, cd, 0, g->d);
    if (!x) { g->failed = true; return NULL; }
    g->in[g->n_in++] = x;
    if (vc) fill(g, x, vc);
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

static bool push_case(gen *g, const char *ret_names)
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

typedef struct shp {
    uint32_t rank;
    int64_t dims[4];
} shp;

static shp ew_shape(const char *sc)
{
    if (!strncmp(sc, "dyn_", 4)) return (shp){2, {-1, 3}};  /* tensor<?x3xT, #stablehlo.bounds<16, ?>> */
    if (!strcmp(sc, "scalar")) return (shp){0, {0}};
    if (!strcmp(sc, "empty")) return (shp){2, {0, 3}};
    if (!strcmp(sc, "one")) return (shp){1, {1}};
    if (!strcmp(sc, "wide")) return (shp){2, {2, 1031}};
    return (shp){2, {7, 13}}; /* odd, broadcast, dimnums */
}

static const char *cmp_dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

/* An operand of an elementwise op: a parameter, or in the broadcast class
 * the last operand broadcast from its trailing dimension. */
static void ew_operand(gen *g, const char *name, plumb_dtype t, shp s, bool bcast, const char *vc)
{
    if (!bcast) { param(g, name, t, s.rank, s.dims, vc, 0, 0); return; }
    char pn[16];
    snprintf(pn, sizeof pn, "%s_in", name);
    param(g, pn, t, 1, &s.dims[1], vc, 0, 0);
    plumb_buf_printf(&g->body, "  %%%s = stablehlo.broadcast_in_dim %%%s, dims = [1] : (%s) -> %s\n", name, pn,
                     tys(g, t, 1, &s.dims[1]), tys(g, t, s.rank, s.dims));
}

static bool gen_elementwise(gen *g, plumb_dtype target)
{
    plumb_opcode op = g->op;
    plumb_dtype t = g->t;
    const plumb_op_info *oi = plumb_op_get(op);
    shp s = ew_shape(g->shape);
    bool bc = !strcmp(g->shape, "broadcast");
    const char *T = tys(g, t, s.rank, s.dims);
    const char *I1 = tys(g, PLUMB_I1, s.rank, s.dims);
    switch (op) {
    case PLUMB_OP_SELECT:
        param(g, "p", PLUMB_I1, s.rank, s.dims, "uniform", 0, 0);
        param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        ew_operand(g, "y", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", I1, T);
        g->ret_types = T;
        break;
    case PLUMB_OP_CLAMP:
        param(g, "lo", t, s.rank, s.dims, g->value, 0, 0);
        param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        ew_operand(g, "hi", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : %s\n", T);
        g->ret_types = T;
        break;
    case PLUMB_OP_COMPARE: {
        param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        ew_operand(g, "y", t, s, bc, g->value);
        const char *ct = plumb_dtype_is_float(t) ? (g->rep % 2 ? ", TOTALORDER" : ", FLOAT") : "";
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y%s : (%s, %s) -> %s\n",
                         cmp_dirs[(g->ordinal + g->rep) % 6], ct, T, T, I1);
        g->ret_types = I1;
        break;
    }
    case PLUMB_OP_CONVERT: {
        ew_operand(g, "x", t, s, bc, g->value);
        const char *U = tys(g, target, s.rank, s.dims);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_REDUCE_PRECISION: {
        static const char *fmts[] = {"e5m2", "e4m3", "e5m10", "e8m7"};
        ew_operand(g, "x", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = %s : %s\n",
                         fmts[(g->ordinal + g->rep) % 4], T);
        g->ret_types = T;
        break;
    }
    default:
        if (oi->arity == 1) {
            ew_operand(g, "x", t, s, bc, g->value);
            if (pred_op(op)) {
                plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
                g->ret_types = I1;
            } else {
                plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
                g->ret_types = T;
            }
        } else {
            param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
            ew_operand(g, "y", t, s, bc, g->value);
            plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
            g->ret_types = T;
        }
    }
    return push_case(g, "%r");
}

/* The f16/bf16 sweep: one case holding every bit pattern. */
static bool gen_exhaustive16(gen *g)
{
    int64_t n = 65536;
    const char *T = tys(g, g->t, 1, &n);
    plumb_tensor *x = param(g, "x", g->t, 1, &n, NULL, 0, 0);
    if (!x) return push_case(g, "%r");
    for (int64_t i = 0; i < n; i++) plumb_store_bits(g->t, x->data, (size_t)i, (uint64_t)i);
    const plumb_op_info *oi = plumb_op_get(g->op);
    if (pred_op(g->op)) {
        const char *I1 = tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
        g->ret_types = I1;
    } else if (g->op == PLUMB_OP_REDUCE_PRECISION) {
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = e4m3 : %s\n", T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
    return push_case(g, "%r");
}

/* Binary float sweeps: specials × specials, specials × random (both
 * orders), and exponent-stratified random pairs. */
static bool gen_binary_sweep(gen *g, int which)
{
    plumb_dtype t = g->t;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(t, sp);
    int64_t n = which == 0 ? (int64_t)ns * ns : which == 1 ? (int64_t)ns * 16 : 1024;
    const char *T = tys(g, t, 1, &n);
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = param(g, "y", t, 1, &n, NULL, 0, 0);
    if (!x || !y) return push_case(g, "%r");
    int emax = (1 << (di->exp_bits - 1)) - 1;
    int p = (int)di->mant_bits + 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t a, b;
        if (which == 0) { a = sp[i / ns]; b = sp[i % ns]; }
        else if (which == 1) {
            uint64_t r = fbits(t, gsl_ran_gaussian(g->rng, 4.0));
            a = sp[(i / 16) % ns];
            b = r;
            if (i % 2) { uint64_t tmp = a; a = b; b = tmp; }
        } else {
            /* exponents uniform over the normal range; the second within p+3
             * binades of the first so that cancellation and alignment shifts
             * of every length occur */
            int ea = (1 - emax) + (int)gsl_rng_uniform_int(g->rng, (unsigned long)(2 * emax - 1));
            int eb = ea + (int)gsl_rng_uniform_int(g->rng, (unsigned long)(2 * p + 7)) - (p + 3);
            if (eb < 1 - emax) eb = 1 - emax;
            if (eb > emax) eb = emax;
            double ma = 1.0 + gsl_rng_uniform(g->rng), mb = 1.0 + gsl_rng_uniform(g->rng);
            a = fbits(t, ldexp(ma, ea) * (gsl_rng_uniform(g->rng) < 0.5 ? -1 : 1));
            b = fbits(t, ldexp(mb, eb) * (gsl_rng_uniform(g->rng) < 0.5 ? -1 : 1));
        }
        plumb_store_bits(t, x->data, (size_t)i, a);
        plumb_store_bits(t, y->data, (size_t)i, b);
    }
    if (g->op == PLUMB_OP_COMPARE) {
        const char *I1 = tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, FLOAT : (%s, %s) -> %s\n",
                         cmp_dirs[which % 6 + 2], T, T, I1);
        g->ret_types = I1;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
        g->ret_types = T;
    }
    return push_case(g, "%r");
}

static bool gen_movement(gen *g, plumb_dtype target)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *vc = g->value;
    shp s = ew_shape(sc);
    bool dn = !strcmp(sc, "dimnums");
    if (dn) s = (shp){3, {2, 3, 5}};
    const char *T = tys(g, t, s.rank, s.dims);
    plumb_buf *b = &g->body;
    switch (g->op) {
    case PLUMB_OP_CONSTANT: {
        plumb_tensor *tmp = plumb_tensor_new(t, s.rank, s.dims, 0, g->d);
        if (!tmp) { g->failed = true; break; }
        fill(g, tmp, vc);
        plumb_buf_puts(b, "  %r = stablehlo.constant ");
        plumb_dense_print(b, tmp, true);
        plumb_buf_printf(b, " : %s\n", T);
        plumb_tensor_free(tmp);
        g->ret_types = T;
        break;
    }
    case PLUMB_OP_IOTA:
        plumb_buf_printf(b, "  %%r = stablehlo.iota dim = %u : %s\n", s.rank ? s.rank - 1 : 0, T);
        g->ret_types = T;
        break;
    case PLUMB_OP_BITCAST_CONVERT: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        const char *U = tys(g, target, s.rank, s.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.bitcast_convert %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_BROADCAST_IN_DIM: {
        shp in = {1, {s.rank ? s.dims[s.rank - 1] : 1}}, outs = {2, {3, in.dims[0]}};
        const char *dims = "[1]";
        if (!strcmp(sc, "one")) { in = (shp){1, {1}}; outs = (shp){1, {5}}; dims = "[0]"; }
        if (!strcmp(sc, "empty")) { in = (shp){1, {0}}; outs = (shp){2, {3, 0}}; }
        if (dn) { in = (shp){2, {7, 1}}; outs = (shp){3, {2, 7, 5}}; dims = "[1, 2]"; }
        param(g, "x", t, in.rank, in.dims, vc, 0, 0);
        const char *U = tys(g, t, outs.rank, outs.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.broadcast_in_dim %%x, dims = %s : (%s) -> %s\n", dims,
                         tys(g, t, in.rank, in.dims), U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_RESHAPE: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp o = s;
        if (s.rank == 1) o = (shp){0, {0}};
        else if (dn) o = (shp){2, {5, 6}};
        else if (!strcmp(sc, "wide")) o = (shp){1, {2062}};
        else { o.dims[0] = s.dims[1]; o.dims[1] = s.dims[0]; }
        const char *U = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.reshape %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_TRANSPOSE: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp o = s;
        const char *perm = "[0]";
        if (s.rank == 2) { o.dims[0] = s.dims[1]; o.dims[1] = s.dims[0]; perm = "[1, 0]"; }
        if (dn) { o = (shp){3, {5, 2, 3}}; perm = "[2, 0, 1]"; }
        const char *U = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.transpose %%x, dims = %s : (%s) -> %s\n", perm, T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_REVERSE:
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        plumb_buf_printf(b, "  %%r = stablehlo.reverse %%x, dims = %s : %s\n",
                         s.rank == 1 ? "[0]" : dn ? "[0, 2]" : "[0, 1]", T);
        g->ret_types = T;
        break;
    case PLUMB_OP_SLICE: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        plumb_buf sl;
        plumb_buf_init(&sl);
        shp o = s;
        for (uint32_t i = 0; i < s.rank; i++) {
            int64_t n = s.dims[i], start = n > 2 ? 1 : 0, stride = n > 4 ? 2 + (int64_t)i : 1, lim = n > 3 ? n - 1 : n;
            o.dims[i] = lim > start ? (lim - start + stride - 1) / stride : 0;
            plumb_buf_printf(&sl, "%s%lld:%lld:%lld", i ? ", " : "", (long long)start, (long long)lim, (long long)stride);
        }
        const char *U = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.slice %%x [%s] : (%s) -> %s\n", sl.data ? sl.data : "", T, U);
        plumb_buf_free(&sl);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        shp w = s;
        for (uint32_t i = 0; i < s.rank; i++) w.dims[i] = s.dims[i] > 1 ? s.dims[i] / 2 : s.dims[i];
        const char *W = tys(g, t, w.rank, w.dims);
        if (g->op == PLUMB_OP_DYNAMIC_UPDATE_SLICE) param(g, "u", t, w.rank, w.dims, vc, 0, 0);
        plumb_buf idx, ity, sz;
        plumb_buf_init(&idx);
        plumb_buf_init(&ity);
        plumb_buf_init(&sz);
        for (uint32_t i = 0; i < s.rank; i++) {
            char nm[16];
            snprintf(nm, sizeof nm, "i%u", i);
            /* start indices partly out of range: the op clamps them */
            param(g, nm, PLUMB_I32, 0, NULL, NULL, -2, s.dims[i] + 2);
            plumb_buf_printf(&idx, ", %%%s", nm);
            plumb_buf_puts(&ity, ", tensor<i32>");
            plumb_buf_printf(&sz, "%s%lld", i ? ", " : "", (long long)w.dims[i]);
        }
        if (g->op == PLUMB_OP_DYNAMIC_SLICE) {
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_slice %%x%s, sizes = [%s] : (%s%s) -> %s\n",
                             idx.data ? idx.data : "", sz.data ? sz.data : "", T, ity.data ? ity.data : "", W);
            g->ret_types = W;
        } else {
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_update_slice %%x, %%u%s : (%s, %s%s) -> %s\n",
                             idx.data ? idx.data : "", T, W, ity.data ? ity.data : "", T);
            g->ret_types = T;
        }
        plumb_buf_free(&idx);
        plumb_buf_free(&ity);
        plumb_buf_free(&sz);
        break;
    }
    case PLUMB_OP_CONCATENATE: {
        uint32_t dim = s.rank - 1;
        shp s2 = s, o = s;
        s2.dims[dim] = s.dims[dim] == 0 ? 0 : 5;
        o.dims[dim] = s.dims[dim] + s2.dims[dim];
        if (dn) { dim = 1; s2 = s; s2.dims[1] = 4; o = s; o.dims[1] = 7; }
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        param(g, "y", t, s2.rank, s2.dims, vc, 0, 0);
        const char *U = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.concatenate %%x, %%y, dim = %u : (%s, %s) -> %s\n", dim, T,
                         tys(g, t, s2.rank, s2.dims), U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_PAD: {
        param(g, "x", t, s.rank, s.dims, vc, 0, 0);
        param(g, "v", t, 0, NULL, vc, 0, 0);
        plumb_buf lo, hi, in;
        plumb_buf_init(&lo);
        plumb_buf_init(&hi);
        plumb_buf_init(&in);
        shp o = s;
        for (uint32_t i = 0; i < s.rank; i++) {
            int64_t n = s.dims[i];
            int64_t l = (i % 2) ? -1 : 2, h = (i % 2) ? 1 : 0, it = (i == 0 && n > 1) ? 1 : 0;
            if (n == 0 || (n == 1 && l < 0)) l = 0;
            if (n < 0) l = h = it = 0;   /* the `?` dim of a dyn_* case: kept as it is */
            o.dims[i] = n < 0 ? n : l + h + n + (n > 0 ? (n - 1) * it : 0);
            plumb_buf_printf(&lo, "%s%lld", i ? ", " : "", (long long)l);
            plumb_buf_printf(&hi, "%s%lld", i ? ", " : "", (long long)h);
            plumb_buf_printf(&in, "%s%lld", i ? ", " : "", (long long)it);
        }
        const char *U = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.pad %%x, %%v, low = [%s], high = [%s], interior = [%s] : (%s, %s) -> %s\n",
                         lo.data ? lo.data : "", hi.data ? hi.data : "", in.data ? in.data : "", T,
                         tys(g, t, 0, NULL), U);
        plumb_buf_free(&lo);
        plumb_buf_free(&hi);
        plumb_buf_free(&in);
        g->ret_types = U;
        break;
    }
    default:
        g->failed = true;
        plumb_diag_set(g->d, PLUMB_ERR_UNSUPPORTED, (plumb_loc){0, 0}, "no generator for %s", plumb_op_name(g->op));
    }
    return push_case(g, "%r");
}

/* A case with two results: its result types "A, B", in the case's arena. */
static void set_ret_types2(gen *g, const char *a, const char *b)
{
    char *rt = plumb_arena_array(g->out->arena, strlen(a) + strlen(b) + 3, 1);
    if (rt)
        sprintf(rt, "%s, %s", a, b);
    else
        g->failed = true;
    g->ret_types = rt ? rt : "";
}

/* The reduce body: add for the shape classes, max and multiply as extras. */
static bool gen_reduce(gen *g, plumb_opcode body)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    shp s = ew_shape(sc);
    const char *dims = "[1]";
    shp o = {1, {s.dims[0]}};
    if (!strcmp(sc, "one")) { dims = "[0]"; o = (shp){0, {0}}; }
    if (!strcmp(sc, "empty")) { dims = "[0]"; o = (shp){1, {3}}; }
    if (!strcmp(sc, "dimnums")) { s = (shp){3, {4, 5, 6}}; dims = "[0, 2]"; o = (shp){1, {5}}; }
    if (g->dyn) { dims = "[0]"; o = (shp){1, {3}}; }   /* across the `?` dim: n terms, 0 included */
    param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    plumb_tensor *c = param(g, "c", t, 0, NULL, "uniform", 0, 0);
    if (c) {
        uint64_t init = 0;
        if (body == PLUMB_OP_MULTIPLY) init = plumb_dtype_is_float(t) ? fbits(t, 1.0) : 1;
        else if (body == PLUMB_OP_MAXIMUM)
            init = plumb_dtype_is_float(t) ? fbits(t, -INFINITY) : plumb_dtype_is_signed(t) ? int_boundary(t, 3) : 0;
        plumb_store_bits(t, c->data, 0, init);
    }
    const char *U = tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = %s : (%s, %s) -> %s\n",
                     plumb_op_name(body), dims, tys(g, t, s.rank, s.dims), tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

/* lhs %x and kernel %y of a convolution case: the value class's fill, or
 * for complex and the small types the conv-types family's own
 * (conformance/gen_conv_types.c). */
static void conv_operands(gen *g, const shp *l, const shp *r)
{
    uint32_t nv;
    bool own = conf_conv_types_values(g->t, &nv) != NULL;
    plumb_tensor *x = param(g, "x", g->t, l->rank, l->dims, own ? NULL : g->value, 0, 0);
    plumb_tensor *y = param(g, "y", g->t, r->rank, r->dims, own ? NULL : g->value, 0, 0);
    if (own && x && y && (!conf_conv_types_fill(g->value, x, g->rng) || !conf_conv_types_fill(g->value, y, g->rng)))
        g->failed = true;
}

/* One convolution per shape class (SH_CONV); the result shapes follow the
 * spec's rule, worked out by hand in each comment. */
static bool gen_conv(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *nhwc = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", *d1 = "[b, 0, f]x[0, i, o]->[b, 0, f]";
    /* 7x5 padded by 1 under a 3x3 window stays 7x5 */
    shp l = {4, {2, 7, 5, 3}}, r = {4, {3, 3, 3, 4}}, o = {4, {2, 7, 5, 4}};
    const char *dn = nhwc, *win = "pad = [[1, 1], [1, 1]]";
    int fgc = 1, bgc = 1;
    if (!strcmp(sc, "empty")) {          /* no input features: +0 */
        l = (shp){4, {2, 5, 5, 0}}; r = (shp){4, {3, 3, 0, 4}}; o = (shp){4, {2, 3, 3, 4}}; win = "";
    } else if (!strcmp(sc, "one")) {
        l = (shp){4, {1, 1, 1, 1}}; r = l; o = l; win = "";
    } else if (!strcmp(sc, "wide")) {    /* (6 - 3) / 2 + 1 = 2 */
        l = (shp){4, {1, 6, 6, 32}}; r = (shp){4, {3, 3, 32, 8}}; o = (shp){4, {1, 2, 2, 8}}; win = "stride = [2, 2]";
    } else if (!strcmp(sc, "nchw")) {    /* (9 - 3) / 2 + 1 = 4, (10 - 3) / 2 + 1 = 4 */
        l = (shp){4, {1, 3, 9, 10}}; r = (shp){4, {4, 3, 3, 3}}; o = (shp){4, {1, 4, 4, 4}};
        dn = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]"; win = "stride = [2, 2]";
    } else if (!strcmp(sc, "groups")) {  /* 4 features in 2 groups of 2, 3 outputs each */
        l = (shp){4, {2, 5, 5, 4}}; r = (shp){4, {3, 3, 2, 6}}; o = (shp){4, {2, 5, 5, 6}}; fgc = 2;
    } else if (!strcmp(sc, "batch_groups")) {   /* batch 4 in 2 groups: 2 */
        l = (shp){3, {4, 6, 3}}; r = (shp){3, {3, 3, 4}}; o = (shp){3, {2, 4, 4}}; dn = d1; win = ""; bgc = 2;
    } else if (!strcmp(sc, "dilated")) { /* 7 -> 13 dilated, 16 padded, window 3 -> 5: 12 */
        l = (shp){3, {2, 7, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {2, 12, 5}}; dn = d1;
        win = "pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [2], reverse = [true]";
    } else if (!strcmp(sc, "layout")) {  /* lhs (11, f 2, b 3), kernel (o 5, 3, i 2): 11 - 3 + 1 = 9 */
        l = (shp){3, {11, 2, 3}}; r = (shp){3, {5, 3, 2}}; o = (shp){3, {5, 3, 9}};
        dn = "[0, f, b]x[o, 0, i]->[f, b, 0]"; win = "";
    }
    conv_operands(g, &l, &r);
    const char *L = tys(g, t, l.rank, l.dims), *R = tys(g, t, r.rank, r.dims), *U = tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.convolution(%%x, %%y) dim_numbers = %s, window = {%s} "
                     "{batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s\n",
                     dn, win, bgc, fgc, L, R, U);
    g->ret_types = U;
    return push_case(g, "%r");
}

/* dynamic_conv: the padding is parameter %p ([S, 2] i64), so the runtime
 * reads it when the case runs; results are static (each class's padding
 * gives the declared shape). The generic form, as StableHLO prints it. */
static bool gen_dynconv(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *dn = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", *win = "";
    /* same: 7x5 padded by 1 under a 3x3 window stays 7x5 */
    shp l = {4, {2, 7, 5, 3}}, r = {4, {3, 3, 3, 4}}, o = {4, {2, 7, 5, 4}};
    int64_t pad[4] = {1, 1, 1, 1}, S = 2;
    if (!strcmp(sc, "crop")) {          /* 8 - 1 + 2 = 9 under a window of 3: 7 */
        l = (shp){3, {1, 8, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {1, 7, 5}};
        dn = "[b, 0, f]x[0, i, o]->[b, 0, f]"; S = 1; pad[0] = -1; pad[1] = 2;
    } else if (!strcmp(sc, "asym")) {   /* (2 + 6 - 2) / 2 + 1 = 4, (5 + 3 - 3) / 2 + 1 = 3 */
        l = (shp){4, {1, 6, 5, 2}}; r = (shp){4, {2, 3, 2, 3}}; o = (shp){4, {1, 4, 3, 3}};
        pad[0] = 2; pad[1] = 0; pad[2] = 0; pad[3] = 3; win = ", window_strides = array<i64: 2, 2>";
    } else if (!strcmp(sc, "dilated")) {   /* 7 -> 13 dilated, 16 padded, window 3 -> 5: 12 */
        l = (shp){3, {2, 7, 3}}; r = (shp){3, {3, 3, 5}}; o = (shp){3, {2, 12, 5}};
        dn = "[b, 0, f]x[0, i, o]->[b, 0, f]"; S = 1; pad[0] = 2; pad[1] = 1;
        win = ", lhs_dilation = array<i64: 2>, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>";
    }
    int64_t pd[2] = {S, 2};
    conv_operands(g, &l, &r);
    plumb_tensor *p = param(g, "p", PLUMB_I64, 2, pd, NULL, 0, 0);
    if (p)
        for (int64_t i = 0; i < 2 * S; i++) plumb_store_bits(PLUMB_I64, p->data, (uint64_t)i, (uint64_t)pad[i]);
    const char *L = tys(g, t, l.rank, l.dims), *R = tys(g, t, r.rank, r.dims), *U = tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%y, %%p) <{batch_group_count = 1 : i64, "
                     "dimension_numbers = #stablehlo.conv<%s>, feature_group_count = 1 : i64%s}> : (%s, %s, %s) -> %s\n",
                     dn, win, L, R, tys(g, PLUMB_I64, 2, pd), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

static bool gen_dot(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    shp l = {2, {7, 13}}, r = {2, {13, 5}}, o = {2, {7, 5}};
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(sc, "scalar")) { l = (shp){1, {13}}; r = l; o = (shp){0, {0}}; dn = "contracting_dims = [0] x [0]"; }
    if (!strcmp(sc, "empty")) { l = (shp){2, {3, 0}}; r = (shp){2, {0, 4}}; o = (shp){2, {3, 4}}; }
    if (!strcmp(sc, "one")) { l = (shp){2, {1, 1}}; r = l; o = l; }
    if (!strcmp(sc, "wide")) { l = (shp){2, {4, 300}}; r = (shp){2, {300, 3}}; o = (shp){2, {4, 3}}; }
    if (g->dyn) {
        /* dot: x's rows `?`; dot_general: the contracting dim `?` in both (n terms) */
        if (g->op == PLUMB_OP_DOT) { l = (shp){2, {-1, 13}}; r = (shp){2, {13, 5}}; o = (shp){2, {-1, 5}}; }
        else { l = (shp){2, {-1, 7}}; r = (shp){2, {-1, 5}}; o = (shp){2, {7, 5}}; dn = "contracting_dims = [0] x [0]"; }
    }
    if (!strcmp(sc, "dimnums")) {
        if (g->op == PLUMB_OP_DOT) { l = (shp){2, {6, 17}}; r = (shp){1, {17}}; o = (shp){1, {6}}; }
        else {
            l = (shp){3, {2, 5, 3}}; r = (shp){3, {3, 2, 4}}; o = (shp){3, {2, 5, 4}};
            dn = "batching_dims = [0] x [1], contracting_dims = [2] x [0]";
        }
    }
    param(g, "x", t, l.rank, l.dims, g->value, 0, 0);
    param(g, "y", t, r.rank, r.dims, g->value, 0, 0);
    const char *U = tys(g, t, o.rank, o.dims);
    if (g->op == PLUMB_OP_DOT)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", tys(g, t, l.rank, l.dims),
                         tys(g, t, r.rank, r.dims), U);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                         tys(g, t, l.rank, l.dims), tys(g, t, r.rank, r.dims), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

static bool gen_indexing(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    const char *T0 = tys(g, t, 0, NULL);
    plumb_buf *b = &g->body;
    int64_t nidx = g->dyn ? -1 : !strcmp(sc, "empty") ? 0 : !strcmp(sc, "one") ? 1 : 5;
    switch (g->op) {
    case PLUMB_OP_GATHER:
    case PLUMB_OP_SCATTER: {
        bool dn = !strcmp(sc, "dimnums");
        shp x = dn ? (shp){3, {4, 6, 5}} : (shp){2, {7, 13}};
        shp ix = dn ? (shp){2, {3, 2}} : (shp){2, {nidx, 1}};
        shp o = dn ? (shp){3, {3, 3, 2}} : (shp){2, {nidx, 13}};
        param(g, "x", t, x.rank, x.dims, g->value, 0, 0);
        /* indices partly out of range: gather clamps, scatter skips */
        param(g, "i", PLUMB_I32, ix.rank, ix.dims, NULL, -1, 7);
        const char *X = tys(g, t, x.rank, x.dims), *IX = tys(g, PLUMB_I32, ix.rank, ix.dims), *O = tys(g, t, o.rank, o.dims);
        if (g->op == PLUMB_OP_GATHER) {
            plumb_buf_printf(b, "  %%r = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<"
                             "offset_dims = %s, collapsed_slice_dims = [0], start_index_map = %s, index_vector_dim = 1>, "
                             "slice_sizes = array<i64: %s>}> : (%s, %s) -> %s\n",
                             dn ? "[1, 2]" : "[1]", dn ? "[0, 2]" : "[0]", dn ? "1, 3, 2" : "1, 13", X, IX, O);
            g->ret_types = O;
        } else {
            param(g, "u", t, o.rank, o.dims, g->value, 0, 0);
            plumb_buf_printf(b, "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                             "update_window_dims = %s, inserted_window_dims = [0], scatter_dims_to_operand_dims = %s, "
                             "index_vector_dim = 1>}> ({\n"
                             "    ^bb0(%%a: %s, %%c: %s):\n"
                             "      %%s = stablehlo.add %%a, %%c : %s\n"
                             "      stablehlo.return %%s : %s\n"
                             "    }) : (%s, %s, %s) -> %s\n",
                             dn ? "[1, 2]" : "[1]", dn ? "[0, 2]" : "[0]", T0, T0, T0, T0, X, IX, O, X);
            g->ret_types = X;
        }
        break;
    }
    case PLUMB_OP_SORT: {
        shp s = ew_shape(sc);
        int dim = g->dyn ? 0 : (int)s.rank - 1;  /* dyn: along the `?` dim */
        if (!strcmp(sc, "dimnums")) { s = (shp){3, {3, 4, 5}}; dim = 0; }
        param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        const char *T = tys(g, t, s.rank, s.dims);
        /* TOTALORDER keeps NaNs a strict weak order, so the result is defined */
        plumb_buf_printf(b, "  %%r = \"stablehlo.sort\"(%%x) <{dimension = %d : i64, is_stable = true}> ({\n"
                         "    ^bb0(%%a: %s, %%c: %s):\n"
                         "      %%lt = stablehlo.compare LT, %%a, %%c%s : (%s, %s) -> tensor<i1>\n"
                         "      stablehlo.return %%lt : tensor<i1>\n"
                         "    }) : (%s) -> %s\n",
                         dim, T0, T0, plumb_dtype_is_float(t) ? ", TOTALORDER" : "", T0, T0, T, T);
        g->ret_types = T;
        break;
    }
    case PLUMB_OP_TOP_K: {
        shp s = ew_shape(sc);
        int64_t k = s.dims[s.rank - 1] > 3 ? 3 : s.dims[s.rank - 1];
        shp o = s;
        o.dims[s.rank - 1] = k;
        param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        const char *O = tys(g, t, o.rank, o.dims), *OI = tys(g, PLUMB_I32, o.rank, o.dims);
        plumb_buf_printf(b, "  %%v, %%i = chlo.top_k(%%x, k = %lld) : %s -> (%s, %s)\n", (long long)k,
                         tys(g, t, s.rank, s.dims), O, OI);
        set_ret_types2(g, O, OI);
        return push_case(g, "%v, %i");
    }
    default:
        g->failed = true;
    }
    return push_case(g, "%r");
}

/* optimization_barrier over two operands: x of the case's type and shape,
 * and an i32 vector of 5 beside it (so that result j must come from operand
 * j, not from operand 0), both returned; the results are the operands' bits. */
static bool gen_barrier(gen *g)
{
    shp s = ew_shape(g->shape);
    int64_t five = 5;
    param(g, "x", g->t, s.rank, s.dims, g->value, 0, 0);
    param(g, "y", PLUMB_I32, 1, &five, "uniform", 0, 0);
    const char *X = tys(g, g->t, s.rank, s.dims), *Y = tys(g, PLUMB_I32, 1, &five);
    plumb_buf_printf(&g->body, "  %%r:2 = stablehlo.optimization_barrier %%x, %%y : %s, %s\n", X, Y);
    set_ret_types2(g, X, Y);
    return push_case(g, "%r#0, %r#1");
}

/* while: a counter i from 0 to the trip count and acc, starting at x, to
 * which each iteration adds x (captured from the function); both returned.
 * "nested": 3 outer iterations, each adding x twice in an inner loop, so
 * acc = x + 6 additions of x in the order the loops run them. */
static bool gen_while(gen *g)
{
    int64_t dims[2] = {7, 13};
    param(g, "x", g->t, 2, dims, g->value, 0, 0);
    const char *X = tys(g, g->t, 2, dims);
    bool nested = !strcmp(g->shape, "nested");
    int trips = nested ? 3 : !strcmp(g->shape, "trip0") ? 0 : !strcmp(g->shape, "trip1") ? 1 : 5;
    plumb_buf *b = &g->body;
    plumb_buf_printf(b, "  %%z = stablehlo.constant dense<0> : tensor<i32>\n"
                        "  %%one = stablehlo.constant dense<1> : tensor<i32>\n"
                        "  %%n = stablehlo.constant dense<%d> : tensor<i32>\n"
                        "  %%two = stablehlo.constant dense<2> : tensor<i32>\n"
                        "  %%r:2 = stablehlo.while(%%i = %%z, %%acc = %%x) : tensor<i32>, %s\n"
                        "  cond {\n"
                        "    %%c = stablehlo.compare LT, %%i, %%n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                        "    stablehlo.return %%c : tensor<i1>\n"
                        "  } do {\n"
                        "    %%i1 = stablehlo.add %%i, %%one : tensor<i32>\n",
                     trips, X);
    if (nested)
        plumb_buf_printf(b, "    %%w:2 = stablehlo.while(%%j = %%z, %%b = %%acc) : tensor<i32>, %s\n"
                            "    cond {\n"
                            "      %%c2 = stablehlo.compare LT, %%j, %%two : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                            "      stablehlo.return %%c2 : tensor<i1>\n"
                            "    } do {\n"
                            "      %%j1 = stablehlo.add %%j, %%one : tensor<i32>\n"
                            "      %%b1 = stablehlo.add %%b, %%x : %s\n"
                            "      stablehlo.return %%j1, %%b1 : tensor<i32>, %s\n"
                            "    }\n"
                            "    stablehlo.return %%i1, %%w#1 : tensor<i32>, %s\n",
                         X, X, X, X);
    else
        plumb_buf_printf(b, "    %%a1 = stablehlo.add %%acc, %%x : %s\n"
                            "    stablehlo.return %%i1, %%a1 : tensor<i32>, %s\n",
                         X, X);
    plumb_buf_puts(b, "  }\n");
    const char *I = "tensor<i32>";
    set_ret_types2(g, I, X);
    return push_case(g, "%r#0, %r#1");
}

/* if and case over x (7x13 of the case's type and value class), the
 * selector a constant: branch k returns x with k additions of x to it
 * (branch 0 returns x itself), so every branch gives its own result; a
 * nested if runs another if in its taken branch. */
static bool gen_branches(gen *g)
{
    int64_t dims[2] = {7, 13};
    param(g, "x", g->t, 2, dims, g->value, 0, 0);
    const char *X = tys(g, g->t, 2, dims);
    plumb_buf *b = &g->body;
    if (g->op == PLUMB_OP_IF) {
        bool nested = !strcmp(g->shape, "nested");
        bool pred = strcmp(g->shape, "taken_false") != 0;
        plumb_buf_printf(b, "  %%p = stablehlo.constant dense<%s> : tensor<i1>\n"
                            "  %%r = \"stablehlo.if\"(%%p) ({\n", pred ? "true" : "false");
        if (nested)
            plumb_buf_printf(b, "    %%q = stablehlo.constant dense<false> : tensor<i1>\n"
                                "    %%n = \"stablehlo.if\"(%%q) ({\n"
                                "      stablehlo.return %%x : %s\n"
                                "    }, {\n"
                                "      %%d = stablehlo.add %%x, %%x : %s\n"
                                "      stablehlo.return %%d : %s\n"
                                "    }) : (tensor<i1>) -> %s\n"
                                "    stablehlo.return %%n : %s\n",
                             X, X, X, X, X);
        else
            plumb_buf_printf(b, "    stablehlo.return %%x : %s\n", X);
        plumb_buf_printf(b, "  }, {\n"
                            "    %%s = stablehlo.add %%x, %%x : %s\n"
                            "    %%s2 = stablehlo.add %%s, %%x : %s\n"
                            "    stablehlo.return %%s2 : %s\n"
                            "  }) : (tensor<i1>) -> %s\n",
                         X, X, X, X);
    } else {
        int index = !strcmp(g->shape, "branch0") ? 0 : !strcmp(g->shape, "branch1") ? 1
                  : !strcmp(g->shape, "branch2") ? 2 : -1;
        plumb_buf_printf(b, "  %%k = stablehlo.constant dense<%d> : tensor<i32>\n"
                            "  %%r = \"stablehlo.case\"(%%k) ({\n"
                            "    stablehlo.return %%x : %s\n"
                            "  }, {\n"
                            "    %%a = stablehlo.add %%x, %%x : %s\n"
                            "    stablehlo.return %%a : %s\n"
                            "  }, {\n"
                            "    %%c = stablehlo.add %%x, %%x : %s\n"
                            "    %%c2 = stablehlo.add %%c, %%x : %s\n"
                            "    stablehlo.return %%c2 : %s\n"
                            "  }) : (tensor<i32>) -> %s\n",
                         index, X, X, X, X, X, X, X);
    }
    g->ret_types = X;
    return push_case(g, "%r");
}

/* map (SH_MAP) over x and y of the case's type and shape: the body
 * computes select(x < y, (x + y) + x, y) (add and compare exist on every
 * element type, i1 included), so results depend on both arguments and
 * their order; "captured" adds a scalar parameter c of the function
 * instead of x, which sends the runtime to its per-element path. */
static bool gen_map(gen *g)
{
    bool cap = !strcmp(g->shape, "captured");
    shp s = ew_shape(cap ? "odd" : g->shape);
    plumb_dtype t = g->t;
    param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    if (cap)
        param(g, "c", t, 0, NULL, g->value, 0, 0);
    const char *X = tys(g, t, s.rank, s.dims), *E = tys(g, t, 0, NULL);
    plumb_buf *b = &g->body;
    plumb_buf_printf(b, "  %%r = \"stablehlo.map\"(%%x, %%y) ({\n"
                        "  ^bb0(%%a: %s, %%b: %s):\n"
                        "    %%s = stablehlo.add %%a, %%b : %s\n"
                        "    %%t = stablehlo.add %%s, %%%s : %s\n"
                        "    %%p = stablehlo.compare LT, %%a, %%b : (%s, %s) -> tensor<i1>\n"
                        "    %%o = stablehlo.select %%p, %%t, %%b : tensor<i1>, %s\n"
                        "    stablehlo.return %%o : %s\n"
                        "  }) {dimensions = array<i64",
                     E, E, E, cap ? "c" : "a", E, E, E, E, E);
    for (uint32_t i = 0; i < s.rank; i++)
        plumb_buf_printf(b, "%s %u", i ? "," : ":", i);
    plumb_buf_printf(b, ">} : (%s, %s) -> %s\n", X, X, X);
    g->ret_types = X;
    return push_case(g, "%r");
}

/* composite (SH_COMPOSITE) over x and y of the case's type and shape: the
 * decomposition @decomp, a private function after @main, returns y and x
 * reversed along its first dimension (data movement, which every element
 * type plumb has runs), so each result comes from its own operand in its
 * own order; name, composite_attributes and version are written and must
 * change nothing. */
static bool gen_composite(gen *g)
{
    shp s = ew_shape(g->shape);
    plumb_dtype t = g->t;
    param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    const char *X = tys(g, t, s.rank, s.dims);
    plumb_buf_printf(&g->body, "  %%r:2 = stablehlo.composite \"plumb.swap_reverse\" %%x, %%y {composite_attributes = "
                               "{axis = 0 : i64}, decomposition = @decomp, version = 1 : i32} : (%s, %s) -> (%s, %s)\n",
                     X, X, X, X);
    plumb_buf post;
    plumb_buf_init(&post);
    plumb_buf_printf(&post, "func.func private @decomp(%%a: %s, %%b: %s) -> (%s, %s) {\n", X, X, X, X);
    if (s.rank)
        plumb_buf_printf(&post, "  %%v = stablehlo.reverse %%a, dims = [0] : %s\n  return %%b, %%v : %s, %s\n}\n", X, X, X);
    else
        plumb_buf_printf(&post, "  return %%b, %%a : %s, %s\n}\n", X, X);
    g->post = post.failed || !post.data ? NULL : plumb_arena_strndup(g->out->arena, post.data, post.len);
    if (!g->post)
        g->failed = true;
    plumb_buf_free(&post);
    set_ret_types2(g, X, X);
    return push_case(g, "%r#0, %r#1");
}

/* tuple and get_tuple_element (SH_TUPLE, docs/spec/tuple.md) over x and y
 * of the case's type and shape: t = (x, (y, x, ())) passes an
 * optimization_barrier as one value, and the results are element 1's
 * element 0 (y) and element 0 (x), so each result comes from its own
 * operand through a nested tuple and the empty one. The get_tuple_element
 * family writes the generic form (index as an attribute). Data movement:
 * every element type, exact. */
static bool gen_tuple(gen *g)
{
    shp s = ew_shape(g->shape);
    plumb_dtype t = g->t;
    param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    const char *X = tys(g, t, s.rank, s.dims);
    plumb_buf_printf(&g->body,
                     "  %%e = stablehlo.tuple : tuple<>\n"
                     "  %%i = stablehlo.tuple %%y, %%x, %%e : tuple<%s, %s, tuple<>>\n"
                     "  %%t = stablehlo.tuple %%x, %%i : tuple<%s, tuple<%s, %s, tuple<>>>\n"
                     "  %%b = stablehlo.optimization_barrier %%t : tuple<%s, tuple<%s, %s, tuple<>>>\n",
                     X, X, X, X, X, X, X, X);
    if (g->op == PLUMB_OP_GET_TUPLE_ELEMENT)
        plumb_buf_printf(&g->body,
                         "  %%p = \"stablehlo.get_tuple_element\"(%%b) {index = 1 : i32} : (tuple<%s, tuple<%s, %s, tuple<>>>) -> tuple<%s, %s, tuple<>>\n"
                         "  %%r0 = \"stablehlo.get_tuple_element\"(%%p) {index = 0 : i32} : (tuple<%s, %s, tuple<>>) -> %s\n"
                         "  %%r1 = \"stablehlo.get_tuple_element\"(%%b) {index = 0 : i32} : (tuple<%s, tuple<%s, %s, tuple<>>>) -> %s\n",
                         X, X, X, X, X, X, X, X, X, X, X, X);
    else
        plumb_buf_printf(&g->body,
                         "  %%p = stablehlo.get_tuple_element %%b[1] : (tuple<%s, tuple<%s, %s, tuple<>>>) -> tuple<%s, %s, tuple<>>\n"
                         "  %%r0 = stablehlo.get_tuple_element %%p[0] : (tuple<%s, %s, tuple<>>) -> %s\n"
                         "  %%r1 = stablehlo.get_tuple_element %%b[0] : (tuple<%s, tuple<%s, %s, tuple<>>>) -> %s\n",
                         X, X, X, X, X, X, X, X, X, X, X, X);
    set_ret_types2(g, X, X);
    return push_case(g, "%r0, %r1");
}

/* reduce_window and select_and_scatter (SH_RWIN, SH_SAS): one window
 * geometry per shape class; the init value is the body's identity (the
 * input type's lowest value for maximum, highest for minimum). */
static bool gen_window(gen *g)
{
    plumb_dtype t = g->t;
    const char *sc = g->shape;
    bool f = plumb_dtype_is_float(t), sas = g->op == PLUMB_OP_SELECT_AND_SCATTER;
    shp x = {4, {2, 8, 7, 5}}, o;
    const char *attrs, *body = "add", *cmp = "GE";
    if (!strcmp(sc, "pool2")) {
        attrs = "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>";
        o = (shp){4, {2, 4, 3, 5}};
        body = "maximum";
    } else if (!strcmp(sc, "pool3") || !strcmp(sc, "padmax_neg") || !strcmp(sc, "padmin_pos")) {
        attrs = "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, "
                "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>";
        o = (shp){4, {2, 4, 4, 5}};
        if (sc[3] == 'm') body = sc[4] == 'a' ? "maximum" : "minimum";
    } else if (!strcmp(sc, "dilated")) {
        /* dim 0: dilated 9, padded 12, window 3: 10; dim 1: dilated 13, window 5, stride 2: 5 */
        x = (shp){2, {5, 7}};
        attrs = "base_dilations = array<i64: 2, 2>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>, "
                "window_dilations = array<i64: 1, 2>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 2>";
        o = (shp){2, {10, 5}};
    } else if (!strcmp(sc, "r1")) {
        x = (shp){1, {23}};
        attrs = "padding = dense<[[2, 1]]> : tensor<1x2xi64>, window_dimensions = array<i64: 4>, window_strides = array<i64: 3>";
        o = (shp){1, {8}};
        body = "minimum";
        cmp = "GT";
    } else if (!strcmp(sc, "r2")) {
        x = (shp){2, {6, 9}};
        attrs = "padding = dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>";
        o = (shp){2, {3, 5}};
        cmp = "LE";
    } else {
        x = (shp){3, {4, 3, 9}};
        attrs = "window_dimensions = array<i64: 2, 1, 3>, window_strides = array<i64: 1, 1, 2>";
        o = (shp){3, {3, 3, 4}};
        body = f ? "maximum" : "multiply";
    }
    if (sas) body = "add";   /* the scatter region; init 0 */
    const char *X = tys(g, t, x.rank, x.dims), *O = tys(g, t, o.rank, o.dims), *S = tys(g, t, 0, NULL);
    plumb_tensor *xt = param(g, "x", t, x.rank, x.dims, g->value, 0, 0);
    if (xt && sc[0] == 'p' && sc[3] == 'm') {
        /* padmax_neg / padmin_pos: every value negative (positive), so a
         * border window's padding folded as 0 instead of the init value
         * changes its maximum (minimum); unsigned types and i1 only have
         * the positive side, where the minimum shows it */
        bool neg = sc[4] == 'a' && (f || plumb_dtype_is_signed(t));
        for (uint64_t i = 0, n = plumb_tensor_numel(xt); i < n; i++) {
            uint64_t bits = plumb_load_bits(t, xt->data, i);
            if (f) {
                uint64_t sign = 1ull << (plumb_dtype_get(t)->bits - 1);
                bits = neg ? bits | sign : bits & ~sign;
                if ((bits & ~sign) == 0) bits |= 1;   /* no zeros: ±0 folds like the pad would */
            } else if (plumb_dtype_is_bool(t)) {
                bits = 1;
            } else {
                int64_t v = (int64_t)(bits % 100) + 1;
                bits = (uint64_t)(neg ? -v : v);
            }
            plumb_store_bits(t, xt->data, i, bits);
        }
    }
    if (sas) param(g, "s", t, o.rank, o.dims, g->value, 0, 0);
    plumb_tensor *c = param(g, "c", t, 0, NULL, "uniform", 0, 0);
    if (c) {
        uint64_t init = 0;
        const plumb_dtype_info *di = plumb_dtype_get(t);
        if (!strcmp(body, "multiply")) init = 1;
        else if (!strcmp(body, "maximum") || !strcmp(body, "minimum")) {
            bool mx = !strcmp(body, "maximum");
            if (f) init = fbits(t, mx ? -INFINITY : INFINITY);
            else if (plumb_dtype_is_bool(t)) init = mx ? 0 : 1;
            else if (plumb_dtype_is_signed(t)) init = mx ? 1ull << (di->bits - 1) : (1ull << (di->bits - 1)) - 1;
            else init = mx ? 0 : di->bits == 64 ? ~0ull : (1ull << di->bits) - 1;
        }
        plumb_store_bits(t, c->data, 0, init);
    }
    plumb_buf *b = &g->body;
    if (sas)
        plumb_buf_printf(b, "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{%s}> ({\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%p = stablehlo.compare %s, %%a, %%b : (%s, %s) -> tensor<i1>\n"
                            "    stablehlo.return %%p : tensor<i1>\n"
                            "  }, {\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%m = stablehlo.add %%a, %%b : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s, %s) -> %s\n",
                         attrs, S, S, cmp, S, S, S, S, S, S, X, O, S, X);
    else
        plumb_buf_printf(b, "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
                            "  ^bb0(%%a: %s, %%b: %s):\n"
                            "    %%m = stablehlo.%s %%a, %%b : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s) -> %s\n",
                         attrs, S, S, body, S, S, X, S, O);
    g->ret_types = sas ? X : O;
    return push_case(g, "%r");
}

static bool gen_rng(gen *g)
{
    shp s = ew_shape(g->shape);
    int64_t two = 2;
    param(g, "s", PLUMB_UI64, 1, &two, "uniform", 0, 0);
    const char *O = tys(g, g->t, s.rank, s.dims), *S = tys(g, PLUMB_UI64, 1, &two);
    plumb_buf_printf(&g->body, "  %%o, %%v = stablehlo.rng_bit_generator %%s, algorithm = %s : (%s) -> (%s, %s)\n",
                     !strcmp(g->value, "philox") ? "PHILOX" : "THREE_FRY", S, S, O);
    set_ret_types2(g, S, O);
    return push_case(g, "%o, %v");
}

/* ---- depth families (docs/conformance.md, "Crossed classes, boundaries, binades") ---- */

/* The next representable value of float type t above (up) or below bits b
 * (finite b; ±0 steps to ±the smallest subnormal). */
static uint64_t fstep(plumb_dtype t, uint64_t b, bool up)
{
    uint64_t sign = 1ull << (plumb_dtype_get(t)->bits - 1);
    if ((b & ~sign) == 0) return up ? 1 : sign | 1;
    bool neg = (b & sign) != 0;
    return neg == up ? b - 1 : b + 1;
}

static double fval(plumb_dtype t, uint64_t b)
{
    uint8_t buf[8] = {0};
    plumb_store_bits(t, buf, 0, b);
    return plumb_load_f64(t, buf, 0);
}

/* The largest value of float type t that is <= x (x held in MPFR, well
 * inside t's normal range): MPFR rounds to t's precision downwards, and
 * the result is then exact in a double and in t. */
static uint64_t floor_in(plumb_dtype t, const mpfr_t x)
{
    mpfr_t y;
    mpfr_init2(y, (mpfr_prec_t)plumb_dtype_get(t)->mant_bits + 1);
    mpfr_set(y, x, MPFR_RNDD);
    double d = mpfr_get_d(y, MPFR_RNDN);
    mpfr_clear(y);
    return fbits(t, d);
}

/* max_t + ulp/2 = 2^emax·(2 − 2^-p) (the overflow threshold of a correctly
 * rounded result) and min_subnormal/2 = 2^(emin − p) (below it, or at it by
 * ties-to-even, a result rounds to zero), both exact in MPFR. */
static void overflow_at(plumb_dtype t, mpfr_t r)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1, p = (int)di->mant_bits + 1;
    mpfr_set_ui_2exp(r, 1, -p, MPFR_RNDN);
    mpfr_ui_sub(r, 2, r, MPFR_RNDN);
    mpfr_mul_2si(r, r, emax, MPFR_RNDN);
}

static void underflow_at(plumb_dtype t, mpfr_t r)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int emax = (1 << (di->exp_bits - 1)) - 1, p = (int)di->mant_bits + 1;
    mpfr_set_ui_2exp(r, 1, (1 - emax) - p, MPFR_RNDN);
}

static uint32_t push_pair(conf_boundary *out, uint32_t n, uint32_t cap, uint64_t below, uint64_t above)
{
    if (out && n < cap) { out[n].below = below; out[n].above = above; out[n].other = 0; }
    return n + 1;
}

/* A pair of y values for a binary op with x = other. */
static uint32_t push_pair_x(conf_boundary *out, uint32_t n, uint32_t cap, uint64_t other, uint64_t below, uint64_t above)
{
    n = push_pair(out, n, cap, below, above);
    if (out && n <= cap) out[n - 1].other = other;
    return n;
}

/* A saturation threshold x0 (in MPFR): the pair (largest value <= x0, the next one). */
static uint32_t push_threshold(plumb_dtype t, const mpfr_t x0, conf_boundary *out, uint32_t n, uint32_t cap)
{
    uint64_t lo = floor_in(t, x0);
    return push_pair(out, n, cap, lo, fstep(t, lo, true));
}

uint32_t conf_boundaries(plumb_opcode op, plumb_dtype t, conf_boundary *out, uint32_t cap)
{
    if (!plumb_dtype_is_float(t)) return 0;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    int p = (int)di->mant_bits + 1;
    uint64_t sign = 1ull << (di->bits - 1);
    uint32_t n = 0;
    mpfr_t a, b, half;
    mpfr_inits2(256, a, b, half, (mpfr_ptr)0);
    /* 2^-(p+1): half the spacing just below 1; a result within it of ±1
     * rounds to ±1 (at it, ties-to-even picks ±1, whose significand is even) */
    mpfr_set_ui_2exp(half, 1, -(p + 1), MPFR_RNDN);
    switch (op) {
    case PLUMB_OP_EXPONENTIAL:
        overflow_at(t, a);               /* exp(x) = max + ulp/2 */
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, a);              /* exp(x) = min_subnormal/2 */
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE:
        overflow_at(t, a);               /* e^x − 1 = max + ulp/2 */
        mpfr_log1p(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_log(a, half, MPFR_RNDN);    /* e^x = 2^-(p+1): −1 + e^x rounds to −1 */
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_TANH:
        /* 1 − tanh(x) = 2/(e^2x + 1) = 2^-(p+1): x = ln(2/δ − 1)/2; odd */
        mpfr_ui_div(a, 2, half, MPFR_RNDN);
        mpfr_sub_ui(a, a, 1, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div_2ui(a, a, 1, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_LOGISTIC:
        /* 1 − σ(x) = δ at x = ln((1 − δ)/δ); σ(x) = min_subnormal/2 at x = −ln((1 − m)/m) */
        mpfr_ui_sub(a, 1, half, MPFR_RNDN);
        mpfr_div(a, a, half, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, b);
        mpfr_ui_sub(a, 1, b, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_ERF: {
        /* erfc(x) = 2^-(p+1), by bisection on [0, 30] (erfc decreases) */
        mpfr_t lo, hi, mid, v;
        mpfr_inits2(256, lo, hi, mid, v, (mpfr_ptr)0);
        mpfr_set_ui(lo, 0, MPFR_RNDN);
        mpfr_set_ui(hi, 30, MPFR_RNDN);
        for (int it = 0; it < 200; it++) {
            mpfr_add(mid, lo, hi, MPFR_RNDN);
            mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
            mpfr_erfc(v, mid, MPFR_RNDN);
            if (mpfr_cmp(v, half) > 0) mpfr_set(lo, mid, MPFR_RNDN);
            else mpfr_set(hi, mid, MPFR_RNDN);
        }
        n = push_threshold(t, lo, out, n, cap);
        mpfr_neg(lo, lo, MPFR_RNDN);
        n = push_threshold(t, lo, out, n, cap);
        mpfr_clears(lo, hi, mid, v, (mpfr_ptr)0);
        break;
    }
    case PLUMB_OP_COSH:
    case PLUMB_OP_SINH:
        /* cosh(x) = max + ulp/2 at x = acosh(max + ulp/2), and at -x (even);
         * sinh at +-asinh(max + ulp/2) (odd: -inf on the negative side) */
        overflow_at(t, a);
        if (op == PLUMB_OP_COSH) mpfr_acosh(a, a, MPFR_RNDN);
        else mpfr_asinh(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        mpfr_neg(a, a, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        break;
    case PLUMB_OP_ERFC: {
        /* By bisection on [0, 40] (erfc decreases; erfc(40) < 2^-2300):
         * erfc(x) = min_subnormal/2 (underflow to +0 above it); erfc(x) =
         * 1 - 2^-(p+1) (rounds to 1 below it: half the spacing under 1);
         * erfc(-x) = 2 - erfc(x) = 1 + 2^-p (rounds to 1 above -x: half the
         * spacing over 1). */
        mpfr_t lo, hi, mid, v;
        mpfr_inits2(256, lo, hi, mid, v, (mpfr_ptr)0);
        for (int which = 0; which < 3; which++) {
            if (which == 0) {
                underflow_at(t, b);
            } else {
                mpfr_set_ui_2exp(b, 1, -(p + (which == 1)), MPFR_RNDN);
                mpfr_ui_sub(b, 1, b, MPFR_RNDN);
            }
            mpfr_set_ui(lo, 0, MPFR_RNDN);
            mpfr_set_ui(hi, 40, MPFR_RNDN);
            for (int it = 0; it < 240; it++) {
                mpfr_add(mid, lo, hi, MPFR_RNDN);
                mpfr_div_2ui(mid, mid, 1, MPFR_RNDN);
                mpfr_erfc(v, mid, MPFR_RNDN);
                if (mpfr_cmp(v, b) > 0) mpfr_set(lo, mid, MPFR_RNDN);
                else mpfr_set(hi, mid, MPFR_RNDN);
            }
            if (which == 2) mpfr_neg(lo, lo, MPFR_RNDN);
            n = push_threshold(t, lo, out, n, cap);
        }
        mpfr_clears(lo, hi, mid, v, (mpfr_ptr)0);
        break;
    }
    case PLUMB_OP_POWER: {
        /* the exponent y with 3^y = max + ulp/2 and = min_subnormal/2 (base x = 3) */
        uint32_t n0 = n;
        mpfr_set_ui(b, 3, MPFR_RNDN);
        mpfr_log(b, b, MPFR_RNDN);
        overflow_at(t, a);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        underflow_at(t, a);
        mpfr_log(a, a, MPFR_RNDN);
        mpfr_div(a, a, b, MPFR_RNDN);
        n = push_threshold(t, a, out, n, cap);
        for (uint32_t i = n0; out && i < n && i < cap; i++) out[i].other = fbits(t, 3.0);
        break;
    }
    case PLUMB_OP_ADD:
    case PLUMB_OP_SUBTRACT:
    case PLUMB_OP_MULTIPLY:
    case PLUMB_OP_DIVIDE: {
        /* max + ulp(max)/2 = max + 2^(emax-p) is the overflow threshold and
         * a tie that rounds to infinity (max's significand is odd); the
         * smallest subnormal times 1/2 is a tie that rounds to 0 */
        uint64_t maxb = ((((1ull << di->exp_bits) - 1) << di->mant_bits)) - 1, one = fbits(t, 1.0), two = fbits(t, 2.0);
        int emax = (1 << (di->exp_bits - 1)) - 1;
        uint64_t h = fbits(t, ldexp(1.0, emax - p)), hf = fbits(t, 0.5);
        if (op == PLUMB_OP_ADD) {
            n = push_pair_x(out, n, cap, maxb, fstep(t, h, false), h);             /* max, inf */
            n = push_pair_x(out, n, cap, maxb | sign, h | sign, fstep(t, h, false) | sign); /* -inf, -max */
        } else if (op == PLUMB_OP_SUBTRACT) {
            n = push_pair_x(out, n, cap, maxb, h | sign, fstep(t, h, false) | sign); /* inf, max */
            n = push_pair_x(out, n, cap, maxb | sign, fstep(t, h, false), h);        /* -max, -inf */
        } else if (op == PLUMB_OP_MULTIPLY) {
            n = push_pair_x(out, n, cap, maxb, one, fstep(t, one, true));           /* max, inf */
            n = push_pair_x(out, n, cap, 1, hf, fstep(t, hf, true));                /* 0, min_subnormal */
        } else {
            n = push_pair_x(out, n, cap, maxb, fstep(t, one, false), one);          /* inf, max */
            n = push_pair_x(out, n, cap, 1, fstep(t, two, false), two);             /* min_subnormal, 0 */
        }
        break;
    }
    case PLUMB_OP_FLOOR:
    case PLUMB_OP_CEIL:
    case PLUMB_OP_ROUND_NEAREST_EVEN:
    case PLUMB_OP_ROUND_NEAREST_AFZ: {
        /* the points where the result steps: integers for floor/ceil,
         * k + 1/2 for the nearest roundings, including 1/2 itself (whose
         * predecessor trips floor(x + 1/2)) and the largest half-integer
         * 2^(p-1) − 1/2; each straddled by its two neighbours, both signs */
        bool nearest = op == PLUMB_OP_ROUND_NEAREST_EVEN || op == PLUMB_OP_ROUND_NEAREST_AFZ;
        double top = ldexp(1.0, p - 1);
        double near[] = {0.5, 1.5, 2.5, 3.5, 1000.5, top - 0.5}, ints[] = {0.0, 1.0, 2.0, 3.0, 1000.0, top - 1.0};
        for (uint32_t i = 0; i < LEN(near); i++) {
            double m = nearest ? near[i] : ints[i];
            if (fval(t, fbits(t, m)) != m) continue; /* not a value of t */
            for (int s = 0; s < 2; s++) {
                if (m == 0 && s) continue;
                uint64_t mb = fbits(t, m) | (s ? sign : 0);
                n = push_pair(out, n, cap, fstep(t, mb, false), fstep(t, mb, true));
            }
        }
        break;
    }
    default:
        break;
    }
    mpfr_clears(a, b, half, (mpfr_ptr)0);
    return n;
}

/* Convert src → dst rounds where the source holds more precision than the
 * target or a wider exponent range (bf16 → f16 rounds in f16's subnormal
 * range and overflows): float pairs with p_src > p_dst or emax_src >
 * emax_dst, and integers of more bits than p_dst. */
static bool convert_rounds(plumb_dtype src, plumb_dtype dst)
{
    if (!plumb_dtype_is_float(dst)) return false;
    uint32_t pd = plumb_dtype_get(dst)->mant_bits + 1;
    if (plumb_dtype_is_float(src))
        return plumb_dtype_get(src)->mant_bits + 1 > pd || plumb_dtype_get(src)->exp_bits > plumb_dtype_get(dst)->exp_bits;
    return !plumb_dtype_is_bool(src) && plumb_dtype_get(src)->bits > pd;
}

/* Float → integer conversion truncates: its result steps at every integer
 * the source holds within the target's range. */
static bool convert_truncates(plumb_dtype src, plumb_dtype dst)
{
    return plumb_dtype_is_float(src) && !plumb_dtype_is_float(dst) && !plumb_dtype_is_bool(dst);
}

/* Truncation steps of float src → integer dst: the pairs (pred(k), k) for
 * k = 1, 2, 3, 100 and the largest value of src not above dst's maximum,
 * and (−k, succ(−k)) for signed targets (−1 < x < 0 gives 0). */
static uint32_t truncation_steps(plumb_dtype src, plumb_dtype dst, conf_boundary *out, uint32_t cap)
{
    const plumb_dtype_info *di = plumb_dtype_get(dst);
    bool sg = plumb_dtype_is_signed(dst);
    double imax = ldexp(1.0, (int)di->bits - (sg ? 1 : 0)) - 1.0; /* rounded up to a power of two in a double for 64 bits */
    uint64_t top = fbits(src, imax);
    while (fval(src, top) > imax || isinf(fval(src, top)) || fval(src, top) >= ldexp(1.0, (int)di->bits - (sg ? 1 : 0)))
        top = fstep(src, top, false);
    uint64_t sign = 1ull << (plumb_dtype_get(src)->bits - 1);
    double ks[] = {1.0, 2.0, 3.0, 100.0, fval(src, top)};
    uint32_t n = 0;
    for (uint32_t i = 0; i < LEN(ks); i++) {
        if (ks[i] > fval(src, top) || fval(src, fbits(src, ks[i])) != ks[i]) continue;
        uint64_t kb = fbits(src, ks[i]);
        n = push_pair(out, n, cap, fstep(src, kb, false), kb);
        if (sg) n = push_pair(out, n, cap, kb | sign, fstep(src, kb | sign, true));
    }
    return n;
}

uint32_t conf_convert_boundaries(plumb_dtype src, plumb_dtype dst, conf_boundary *out, uint32_t cap)
{
    if (plumb_dtype_is_complex(src) || plumb_dtype_is_complex(dst)) return 0;   /* not generated yet */
    /* The FP8/FP6/FP4 and sub-byte formats: no midpoint search yet (fstep
     * assumes a sign bit, which f8E8M0FNU has not: it looped forever). */
    if ((PLUMB_TY_LOWP & (PLUMB_TY_BIT(src) | PLUMB_TY_BIT(dst))) != 0) return 0;
    if (convert_truncates(src, dst)) return truncation_steps(src, dst, out, cap);
    if (!convert_rounds(src, dst)) return 0;
    const plumb_dtype_info *dd = plumb_dtype_get(dst);
    int pd = (int)dd->mant_bits + 1, emax = (1 << (dd->exp_bits - 1)) - 1;
    uint32_t n = 0;
    if (!plumb_dtype_is_float(src)) {
        /* odd multiples of 2^s in [2^(pd+s), 2^(pd+s+1)) are midpoints of dst:
         * (2^pd + 1)·2^s ties to the even 2^pd·2^s, (2^pd + 3)·2^s to (2^pd + 4)·2^s */
        const plumb_dtype_info *si = plumb_dtype_get(src);
        uint64_t mask = si->bits == 64 ? ~0ull : (1ull << si->bits) - 1;
        bool sg = plumb_dtype_is_signed(src);
        int top = (int)si->bits - (sg ? 1 : 0); /* value bits */
        /* the largest shift keeps m below 2^top and below dst's overflow */
        int shifts[2] = {0, (top < emax ? top : emax) - pd - 1};
        for (int k = 0; k < 2; k++) {
            if (k && shifts[1] <= 0) break;
            for (uint64_t j = 1; j <= 3; j += 2) {
                uint64_t m = ((1ull << pd) + j) << shifts[k];
                n = push_pair(out, n, cap, m - 1, m + 1);
                if (sg) n = push_pair(out, n, cap, (0 - (m + 1)) & mask, (0 - (m - 1)) & mask);
            }
        }
        /* the overflow threshold max + ulp/2 = 2^emax·(2 − 2^-pd), an integer
         * when emax >= pd, within the source's range (f16 targets) */
        if (emax >= pd && emax + 1 < top) {
            uint64_t m = ((2ull << pd) - 1) << (emax - pd);
            n = push_pair(out, n, cap, m - 1, m + 1);
        }
        return n;
    }
    /* float: midpoints between neighbours of dst near 1 (ties down and up),
     * near the top of its range, the overflow threshold max + ulp/2, and in
     * its subnormal range; each straddled by the source's neighbours, both
     * signs */
    double sub = ldexp(1.0, 1 - emax - (pd - 1)); /* dst's smallest subnormal */
    double mids[] = {1.0 + ldexp(1.0, -pd), 1.0 + 3.0 * ldexp(1.0, -pd), ldexp(1.0 + 3.0 * ldexp(1.0, -pd), emax - 1),
                     ldexp(2.0 - ldexp(1.0, -pd), emax), 0.5 * sub, 1.5 * sub, 2.5 * sub};
    uint64_t sign = 1ull << (plumb_dtype_get(src)->bits - 1);
    for (uint32_t i = 0; i < LEN(mids); i++) {
        /* the source's neighbours strictly below and above the midpoint
         * (its predecessor and successor when the source holds it) */
        uint64_t lo = fbits(src, mids[i]), hi = lo;
        if (!isfinite(fval(src, lo)) || fval(src, lo) == 0) continue; /* outside the source's range */
        while (fval(src, lo) >= mids[i]) lo = fstep(src, lo, false);
        while (fval(src, hi) <= mids[i]) hi = fstep(src, hi, true);
        if (!isfinite(fval(src, hi))) continue;
        for (int s = 0; s < 2; s++)
            n = s ? push_pair(out, n, cap, hi | sign, lo | sign) : push_pair(out, n, cap, lo, hi);
    }
    return n;
}

uint32_t conf_double_rounding_traps(plumb_dtype dst, uint64_t *out, uint32_t cap)
{
    if (dst != PLUMB_F16 && dst != PLUMB_BF16) return 0;
    const plumb_dtype_info *dd = plumb_dtype_get(dst);
    int pd = (int)dd->mant_bits + 1;
    /* x = m ± δ with m a midpoint of dst and 0 < δ < half an f32 ulp of m:
     * f64 → f32 rounds x to m, whose tie then goes to the even neighbour,
     * which is the far side of m for these signs of δ; one rounding goes
     * to the near side. m = 1 + 2^-pd ties down (1 is even): x = m + δ;
     * m = 1 + 3·2^-pd ties up: x = m − δ. */
    double delta = ldexp(1.0, -24 - 4);
    double v[] = {1.0 + ldexp(1.0, -pd) + delta, 1.0 + 3.0 * ldexp(1.0, -pd) - delta,
                  ldexp(1.0 + ldexp(1.0, -pd) + delta, 10), ldexp(1.0 + 3.0 * ldexp(1.0, -pd) - delta, -10)};
    uint32_t n = 0;
    for (uint32_t i = 0; i < LEN(v); i++)
        for (int s = 0; s < 2; s++) {
            if (out && n < cap) out[n] = plumb_f64_bits(s ? -v[i] : v[i]);
            n++;
        }
    return n;
}

/* The pool a crossed case draws from, ordered by class: special values, the
 * class "boundary", subnormals, small normals near the smallest normal, and
 * random normal(0, 1) values; for integers the edge values and random bits. */
#define POOL_MAX 64
static uint32_t value_pool(gen *g, plumb_dtype t, uint64_t *pool, uint32_t *class_start)
{
    uint32_t n = 0, c = 0;
    if (plumb_dtype_is_bool(t)) {
        pool[n++] = 0;
        pool[n++] = 1;
        class_start[c++] = 0;
        class_start[c] = n;
        return n;
    }
    if (!plumb_dtype_is_float(t)) {
        class_start[c++] = n;
        for (uint64_t i = 0; i < 10; i++) pool[n++] = int_boundary(t, i);
        class_start[c++] = n;
        for (int i = 0; i < 6; i++) pool[n++] = random_bits(g, plumb_dtype_get(t)->bits);
        class_start[c] = n;
        return n;
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    class_start[c++] = n;
    n += conf_float_specials(t, pool + n);
    class_start[c++] = n;
    for (uint64_t i = 0; i < 9; i++) pool[n++] = float_value(g, t, "boundary", i * 7);
    class_start[c++] = n;
    for (int i = 0; i < 6; i++) pool[n++] = float_value(g, t, "subnormal", (uint64_t)i);
    class_start[c++] = n;
    for (int i = 0; i < 4; i++)
        pool[n++] = ((1ull << di->mant_bits) | random_bits(g, di->mant_bits)) | (i % 2 ? 1ull << (di->bits - 1) : 0);
    class_start[c++] = n;
    for (int i = 0; i < 8; i++) pool[n++] = float_value(g, t, "normal", 0);
    class_start[c] = n;
    return n;
}

static uint32_t pool_classes(plumb_dtype t)
{
    return plumb_dtype_is_bool(t) ? 1 : plumb_dtype_is_float(t) ? 5 : 2;
}

/* Elementwise ops of arity >= 2: the operands' pool values crossed (x the
 * row, y the column: every class pair, integer edge pairs such as
 * (INT_MIN, −1) included); clamp crosses x with lo and takes hi from a
 * diagonal; compare returns every direction (and for floats both
 * comparison types) on the same crossed data. */
static bool gen_cross_ew(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    uint32_t K = value_pool(g, t, pool, cls);
    int64_t n = (int64_t)K * K;
    const char *T = tys(g, t, 1, &n);
    plumb_buf *b = &g->body;
    plumb_tensor *p = NULL, *x, *y, *z = NULL;
    if (g->op == PLUMB_OP_SELECT) p = param(g, "p", PLUMB_I1, 1, &n, "uniform", 0, 0);
    x = param(g, g->op == PLUMB_OP_CLAMP ? "lo" : "x", t, 1, &n, NULL, 0, 0);
    y = param(g, g->op == PLUMB_OP_CLAMP ? "x" : "y", t, 1, &n, NULL, 0, 0);
    if (g->op == PLUMB_OP_CLAMP) z = param(g, "hi", t, 1, &n, NULL, 0, 0);
    (void)p;
    if (!x || !y || (g->op == PLUMB_OP_CLAMP && !z)) return push_case(g, "%r");
    for (int64_t i = 0; i < n; i++) {
        plumb_store_bits(t, x->data, (size_t)i, pool[i / K]);
        plumb_store_bits(t, y->data, (size_t)i, pool[i % K]);
        if (z) plumb_store_bits(t, z->data, (size_t)i, pool[(i / K + 2 * (i % K) + 1) % K]);
    }
    if (g->op == PLUMB_OP_COMPARE) {
        const char *I1 = tys(g, PLUMB_I1, 1, &n);
        uint32_t nt = plumb_dtype_is_float(t) ? 2 : 1;
        plumb_buf names, types;
        plumb_buf_init(&names);
        plumb_buf_init(&types);
        for (uint32_t k = 0; k < nt; k++)
            for (uint32_t d = 0; d < 6; d++) {
                plumb_buf_printf(b, "  %%r%u = stablehlo.compare %s, %%x, %%y%s : (%s, %s) -> %s\n", k * 6 + d,
                                 cmp_dirs[d], !plumb_dtype_is_float(t) ? "" : k ? ", TOTALORDER" : ", FLOAT", T, T, I1);
                plumb_buf_printf(&names, "%s%%r%u", k + d ? ", " : "", k * 6 + d);
                plumb_buf_printf(&types, "%s%s", k + d ? ", " : "", I1);
            }
        char *rn = plumb_arena_strdup(g->out->arena, names.data ? names.data : "");
        g->ret_types = plumb_arena_strdup(g->out->arena, types.data ? types.data : "");
        plumb_buf_free(&names);
        plumb_buf_free(&types);
        if (!rn || !g->ret_types) { g->failed = true; g->ret_types = ""; return push_case(g, ""); }
        return push_case(g, rn);
    }
    if (g->op == PLUMB_OP_SELECT)
        plumb_buf_printf(b, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", tys(g, PLUMB_I1, 1, &n), T);
    else if (g->op == PLUMB_OP_CLAMP)
        plumb_buf_printf(b, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : %s\n", T);
    else
        plumb_buf_printf(b, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
    g->ret_types = T;
    return push_case(g, "%r");
}

/* Dots and reduces with the classes crossed by rows: row r of x (and
 * column r of a dot's y) holds pool values of class r; the last row mixes
 * every class (column c from class c), so a dot multiplies every class by
 * every other (a subnormal by a normal number included) and sums classes
 * within one row. Reduces (add body) get a random init value, not the
 * identity, so an ignored init shows. */
static bool gen_cross_contract(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    value_pool(g, t, pool, cls);
    uint32_t nc = pool_classes(t);
    int64_t rows = nc + 1, len = 13;
    int64_t xd[2] = {rows, len}, yd[2] = {len, rows}, od[2] = {rows, rows};
    plumb_tensor *x = param(g, "x", t, 2, xd, NULL, 0, 0);
    plumb_tensor *y = g->op == PLUMB_OP_REDUCE ? NULL : param(g, "y", t, 2, yd, NULL, 0, 0);
    plumb_tensor *c = g->op == PLUMB_OP_REDUCE ? param(g, "c", t, 0, NULL, "normal", 0, 0) : NULL;
    if (!x || (g->op == PLUMB_OP_REDUCE ? !c : !y)) return push_case(g, "%r");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < len; k++) {
            uint32_t ca = r < (int64_t)nc ? (uint32_t)r : (uint32_t)(k % nc);
            uint32_t span = cls[ca + 1] - cls[ca];
            uint64_t a = pool[cls[ca] + (uint32_t)gsl_rng_uniform_int(g->rng, span)];
            plumb_store_bits(t, x->data, (size_t)(r * len + k), a);
            if (y) {
                uint64_t bv = pool[cls[ca] + (uint32_t)gsl_rng_uniform_int(g->rng, span)];
                plumb_store_bits(t, y->data, (size_t)(k * rows + r), bv);
            }
        }
    const char *X = tys(g, t, 2, xd);
    if (g->op == PLUMB_OP_REDUCE) {
        const char *U = tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [1] : (%s, %s) -> %s\n",
                         X, tys(g, t, 0, NULL), U);
        g->ret_types = U;
    } else {
        const char *Y = tys(g, t, 2, yd), *O = tys(g, t, 2, od);
        if (g->op == PLUMB_OP_DOT)
            plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", X, Y, O);
        else
            plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : (%s, %s) -> %s\n",
                             X, Y, O);
        g->ret_types = O;
    }
    return push_case(g, "%r");
}

/* Pad crossed with pad values of every class: one pad per value (floats: a
 * NaN with a payload, -0, -inf, the smallest subnormal, the largest finite;
 * integers: min, -1 or max, max; i1: true) of an operand mixing the pool's
 * classes, with low, high and interior padding. */
static bool gen_cross_pad(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    uint32_t K = value_pool(g, t, pool, cls);
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t pv[5];
    uint32_t np = 0;
    if (plumb_dtype_is_float(t)) {
        uint64_t sign = 1ull << (di->bits - 1), expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
        pv[np++] = expm | qbit(di) | 5; /* quiet NaN, payload 5 */
        pv[np++] = sign;
        pv[np++] = expm | sign;
        pv[np++] = 1;
        pv[np++] = expm - 1;
    } else if (plumb_dtype_is_bool(t)) {
        pv[np++] = 1;
    } else {
        pv[np++] = int_boundary(t, 3);
        pv[np++] = int_boundary(t, 2);
        pv[np++] = int_boundary(t, 4);
    }
    int64_t n = 7, on = 2 + 1 + n + (n - 1);
    const char *T = tys(g, t, 1, &n), *T0 = tys(g, t, 0, NULL), *U = tys(g, t, 1, &on);
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x) return push_case(g, "%r0");
    for (int64_t i = 0; i < n; i++) plumb_store_bits(t, x->data, (size_t)i, pool[(uint32_t)(i * 7) % K]);
    plumb_buf names, types;
    plumb_buf_init(&names);
    plumb_buf_init(&types);
    for (uint32_t k = 0; k < np; k++) {
        char pn[16];   /* "v" and any unsigned: gcc -O0 checks the width */
        snprintf(pn, sizeof pn, "v%u", k);
        plumb_tensor *v = param(g, pn, t, 0, NULL, NULL, 0, 0);
        if (v) plumb_store_bits(t, v->data, 0, pv[k]);
        plumb_buf_printf(&g->body, "  %%r%u = stablehlo.pad %%x, %%v%u, low = [2], high = [1], interior = [1] : (%s, %s) -> %s\n",
                         k, k, T, T0, U);
        plumb_buf_printf(&names, "%s%%r%u", k ? ", " : "", k);
        plumb_buf_printf(&types, "%s%s", k ? ", " : "", U);
    }
    char *rn = plumb_arena_strdup(g->out->arena, names.data ? names.data : "");
    g->ret_types = plumb_arena_strdup(g->out->arena, types.data ? types.data : "");
    plumb_buf_free(&names);
    plumb_buf_free(&types);
    if (!rn || !g->ret_types) { g->failed = true; g->ret_types = ""; return push_case(g, ""); }
    return push_case(g, rn);
}

/* Scatter-add with the classes crossed: operand row r holds class r (the
 * last row mixes them), update j lands on row j mod rows with column c from
 * class (c + j) mod classes, so every operand class meets every update class
 * and each row is updated twice (the second on top of the first). */
static bool gen_cross_scatter(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t pool[POOL_MAX];
    uint32_t cls[8];
    value_pool(g, t, pool, cls);
    uint32_t nc = pool_classes(t);
    int64_t rows = nc + 1, cols = 13, nu = 2 * rows;
    int64_t xd[2] = {rows, cols}, id[2] = {nu, 1}, ud[2] = {nu, cols};
    plumb_tensor *x = param(g, "x", t, 2, xd, NULL, 0, 0);
    plumb_tensor *ix = param(g, "i", PLUMB_I32, 2, id, NULL, 0, 0);
    plumb_tensor *u = param(g, "u", t, 2, ud, NULL, 0, 0);
    if (!x || !ix || !u) return push_case(g, "%r");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            uint32_t k = r < (int64_t)nc ? (uint32_t)r : (uint32_t)(c % nc);
            plumb_store_bits(t, x->data, (size_t)(r * cols + c),
                             pool[cls[k] + (uint32_t)gsl_rng_uniform_int(g->rng, cls[k + 1] - cls[k])]);
        }
    for (int64_t j = 0; j < nu; j++) {
        plumb_store_bits(PLUMB_I32, ix->data, (size_t)j, (uint64_t)(j % rows));
        for (int64_t c = 0; c < cols; c++) {
            uint32_t k = (uint32_t)((c + j) % nc);
            plumb_store_bits(t, u->data, (size_t)(j * cols + c),
                             pool[cls[k] + (uint32_t)gsl_rng_uniform_int(g->rng, cls[k + 1] - cls[k])]);
        }
    }
    const char *T0 = tys(g, t, 0, NULL), *X = tys(g, t, 2, xd), *IX = tys(g, PLUMB_I32, 2, id), *U = tys(g, t, 2, ud);
    plumb_buf_printf(&g->body, "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                     "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                     "index_vector_dim = 1>}> ({\n"
                     "    ^bb0(%%a: %s, %%c: %s):\n"
                     "      %%s = stablehlo.add %%a, %%c : %s\n"
                     "      stablehlo.return %%s : %s\n"
                     "    }) : (%s, %s, %s) -> %s\n",
                     T0, T0, T0, T0, X, IX, U, X);
    g->ret_types = X;
    return push_case(g, "%r");
}

static void unary_body(gen *g, const char *T, int64_t n)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    if (pred_op(g->op)) {
        const char *I1 = tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
        g->ret_types = I1;
    } else if (g->op == PLUMB_OP_REDUCE_PRECISION) {
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = e5m10 : %s\n", T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
}

/* Format boundaries of op (conf_boundaries): each pair and one more
 * neighbour on either side; power takes base 3 for x. */
static bool gen_thresholds(gen *g)
{
    plumb_dtype t = g->t;
    conf_boundary bd[32];
    uint32_t nb = conf_boundaries(g->op, t, bd, 32);
    if (nb > 32) nb = 32;
    int64_t n = (int64_t)nb * 4;
    const char *T = tys(g, t, 1, &n);
    bool pw = plumb_op_get(g->op)->arity == 2;
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = pw ? param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || (pw && !y)) return push_case(g, "%r");
    for (uint32_t i = 0; i < nb; i++) {
        uint64_t v[4] = {fstep(t, bd[i].below, false), bd[i].below, bd[i].above, fstep(t, bd[i].above, true)};
        for (int k = 0; k < 4; k++) {
            plumb_store_bits(t, (pw ? y : x)->data, i * 4 + (uint32_t)k, v[k]);
            if (pw) plumb_store_bits(t, x->data, i * 4 + (uint32_t)k, bd[i].other);
        }
    }
    if (pw) {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
        g->ret_types = T;
    } else unary_body(g, T, n);
    return push_case(g, "%r");
}

/* A convert with a small type on either side (conf_small_convert_inputs,
 * conformance/gen_types.c): one rank-1 case holding the pair's whole list. */
static bool gen_small_convert(gen *g)
{
    uint64_t n = conf_small_convert_inputs(g->t, g->target, NULL, 0);
    uint64_t *v = malloc(sizeof *v * (n ? n : 1));
    if (!v) { g->failed = true; return false; }
    conf_small_convert_inputs(g->t, g->target, v, n);
    int64_t dn = (int64_t)n;
    plumb_tensor *x = param(g, "x", g->t, 1, &dn, NULL, 0, 0);
    if (x)
        for (uint64_t i = 0; i < n; i++) plumb_store_bits(g->t, x->data, i, v[i]);
    free(v);
    if (!x) return push_case(g, "%r");
    const char *U = tys(g, g->target, 1, &dn);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", tys(g, g->t, 1, &dn), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

/* Conversion midpoints (conf_convert_boundaries) and, for f64 → f16/bf16,
 * the double-rounding traps. */
static bool gen_midpoints(gen *g)
{
    if (conf_small_convert_pair(g->t, g->target)) return gen_small_convert(g);
    conf_boundary bd[32];
    uint64_t tr[16];
    uint32_t nb = conf_convert_boundaries(g->t, g->target, bd, 32);
    uint32_t nt = g->t == PLUMB_F64 ? conf_double_rounding_traps(g->target, tr, 16) : 0;
    if (nb > 32) nb = 32;
    if (nt > 16) nt = 16;
    int64_t n = (int64_t)nb * 3 + nt;
    plumb_tensor *x = param(g, "x", g->t, 1, &n, NULL, 0, 0);
    if (!x) return push_case(g, "%r");
    uint32_t k = 0;
    for (uint32_t i = 0; i < nb; i++) {
        plumb_store_bits(g->t, x->data, k++, bd[i].below);
        plumb_store_bits(g->t, x->data, k++, bd[i].above);
        /* the midpoint itself: between the two for a float source; ±1 apart for integers */
        uint64_t m = plumb_dtype_is_float(g->t) ? fstep(g->t, bd[i].below, true) : bd[i].below + 1;
        plumb_store_bits(g->t, x->data, k++, m);
    }
    for (uint32_t i = 0; i < nt; i++) plumb_store_bits(g->t, x->data, k++, tr[i]);
    const char *U = tys(g, g->target, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", tys(g, g->t, 1, &n), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

/* f32/f64 unary ops: every binade of the type (subnormal binades
 * included), both signs, a fixed number of random significands in each. */
static bool gen_binades(gen *g)
{
    plumb_dtype t = g->t;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint32_t per = CONF_BINADE_SAMPLES;
    uint32_t nbin = ((1u << di->exp_bits) - 2) + di->mant_bits; /* normal + subnormal binades */
    int64_t n = (int64_t)nbin * 2 * per;
    const char *T = tys(g, t, 1, &n);
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x) return push_case(g, "%r");
    uint64_t sign = 1ull << (di->bits - 1);
    int64_t k = 0;
    for (uint32_t bn = 0; bn < nbin; bn++) {
        for (uint32_t s = 0; s < 2 * per; s++) {
            uint64_t b;
            if (bn < di->mant_bits) {
                /* subnormal binade [2^bn, 2^(bn+1)) in units of the smallest subnormal */
                b = (1ull << bn) | (bn ? random_bits(g, bn) : 0);
            } else {
                uint64_t e = bn - di->mant_bits + 1;
                b = (e << di->mant_bits) | random_bits(g, di->mant_bits);
            }
            plumb_store_bits(t, x->data, (size_t)k++, b | (s % 2 ? sign : 0));
        }
    }
    unary_body(g, T, n);
    return push_case(g, "%r");
}

static bool threshold_op(plumb_opcode op, plumb_dtype t)
{
    if (op == PLUMB_OP_POWER || op == PLUMB_OP_ADD || op == PLUMB_OP_SUBTRACT || op == PLUMB_OP_MULTIPLY ||
        op == PLUMB_OP_DIVIDE)
        return plumb_dtype_is_float(t);
    return (t == PLUMB_F32 || t == PLUMB_F64) && conf_boundaries(op, t, NULL, 0) > 0;
}

/* One depth case: seeded like every other case, from (seed, op, dtype, ordinal). */
static bool depth_case(gen *g, plumb_dtype t, plumb_dtype target, const char *vc, bool (*fn)(gen *))
{
    g->t = t; g->target = target; g->shape = "odd"; g->value = vc; g->rep = 0;
    gsl_rng_set(g->rng, (unsigned long)(mix64(g->seed ^ mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    return fn(g);
}

/* The depth families of op, after every other case so that the ordinals
 * (and so the data) of the older families do not move. */
static bool gen_depth(gen *g)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) continue;   /* complex: not generated yet */
        if (oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity >= 2) ok = depth_case(g, t, t, "cross", gen_cross_ew);
        if (ok && g->op == PLUMB_OP_PAD) ok = depth_case(g, t, t, "cross", gen_cross_pad);
        if (ok && g->op == PLUMB_OP_SCATTER) ok = depth_case(g, t, t, "cross", gen_cross_scatter);
        if (ok && ((oi->kind == PLUMB_KIND_CONTRACTION && g->op != PLUMB_OP_TRIANGULAR_SOLVE &&
                    g->op != PLUMB_OP_CHOLESKY && g->op != PLUMB_OP_CONVOLUTION && g->op != PLUMB_OP_FFT &&
                    g->op != PLUMB_OP_DYNAMIC_CONV) ||
                   g->op == PLUMB_OP_REDUCE))
            ok = depth_case(g, t, t, "cross", gen_cross_contract);
        if (ok && threshold_op(g->op, t)) ok = depth_case(g, t, t, "threshold", gen_thresholds);
        if (ok && (t == PLUMB_F32 || t == PLUMB_F64) && is_unary_float_ew(g->op, t))
            ok = depth_case(g, t, t, "binades", gen_binades);
        if (ok && g->op == PLUMB_OP_CONVERT) {
            for (int u = 0; ok && u < PLUMB_DTYPE_COUNT; u++) {
                if (convert_rounds(t, (plumb_dtype)u)) ok = depth_case(g, t, (plumb_dtype)u, "midpoint", gen_midpoints);
                else if (convert_truncates(t, (plumb_dtype)u)) ok = depth_case(g, t, (plumb_dtype)u, "steps", gen_midpoints);
            }
            /* a small source: every pattern into every type */
            for (int u = 0; ok && plumb_dtype_is_lowp(t) && u < PLUMB_DTYPE_COUNT; u++)
                ok = depth_case(g, t, (plumb_dtype)u, "patterns", gen_small_convert);
        }
    }
    return ok;
}

/* ---- attribute forms (docs/conformance.md, "Attribute forms") ------------------------
 * Every attribute form the spec allows, on small shapes: dimension subsets
 * and permutations up to rank 4, operand counts, scalar bounds, comparison
 * direction × type, sort stability, reduce bodies, negative and interior
 * padding. Ids "<op>/<type>/<shape>/<value>/forms/<form>"; they come after
 * every other family so that no older ordinal moves. manifest.c lists the
 * same forms by its own enumeration (conf_manifest_forms). */

static const int64_t FORM_DIMS[4] = {2, 3, 4, 5};

/* Starts form case `form`: seeds like every case; false when another shard
 * owns it (its ordinal is counted). */
static bool form_begin(gen *g, plumb_dtype t, const char *shape, const char *vc, const char *form)
{
    g->t = t; g->target = t; g->shape = shape; g->value = vc; g->rep = 0;
    g->form = plumb_arena_strdup(g->out->arena, form);
    if (!g->form) g->failed = true;
    gsl_rng_set(g->rng, (unsigned long)(mix64(g->seed ^ mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; g->form = NULL; }
    return keep;
}

static const char *data_class(plumb_dtype t)
{
    return plumb_dtype_is_float(t) ? "special" : plumb_dtype_is_bool(t) ? "uniform" : "boundary";
}

static void dim_list(plumb_buf *b, const uint32_t *v, uint32_t n)
{
    plumb_buf_puts(b, "[");
    for (uint32_t i = 0; i < n; i++) plumb_buf_printf(b, "%s%u", i ? ", " : "", v[i]);
    plumb_buf_puts(b, "]");
}

/* "r3_dims_0_2" (prefix "r3_dims"), or "r3_dims_none" for the empty set:
 * a form names its rank where the same dimensions exist in several. */
static void form_name(char *out, size_t cap, const char *prefix, const uint32_t *v, uint32_t n)
{
    size_t k = (size_t)snprintf(out, cap, "%s", prefix);
    if (n == 0 && k < cap) snprintf(out + k, cap - k, "_none");
    for (uint32_t i = 0; i < n && k < cap; i++) k += (size_t)snprintf(out + k, cap - k, "_%u", v[i]);
}

static bool forms_transpose_reverse(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    bool ok = true;
    for (uint32_t r = 1; ok && r <= 4; r++) {
        char sh[8];
        snprintf(sh, sizeof sh, "r%u", r);
        const char *shape = plumb_arena_strdup(g->out->arena, sh);
        if (!shape) return false;
        if (g->op == PLUMB_OP_REVERSE) {
            for (uint32_t m = 0; ok && m < (1u << r); m++) {
                uint32_t v[4], n = 0;
                for (uint32_t i = 0; i < r; i++) if (m & (1u << i)) v[n++] = i;
                char fn[40], pre[16];
                snprintf(pre, sizeof pre, "r%u_dims", r);
                form_name(fn, sizeof fn, pre, v, n);
                if (!form_begin(g, t, shape, "special", fn)) continue;
                const char *T = tys(g, t, r, FORM_DIMS);
                param(g, "x", t, r, FORM_DIMS, "special", 0, 0);
                plumb_buf_puts(&g->body, "  %r = stablehlo.reverse %x, dims = ");
                dim_list(&g->body, v, n);
                plumb_buf_printf(&g->body, " : %s\n", T);
                g->ret_types = T;
                ok = push_case(g, "%r");
            }
            continue;
        }
        /* every permutation of 0..r-1 in lexicographic order */
        uint32_t p[4] = {0, 1, 2, 3};
        for (;;) {
            char fn[40];
            form_name(fn, sizeof fn, "perm", p, r);
            if (form_begin(g, t, shape, "special", fn)) {
                int64_t od[4];
                for (uint32_t i = 0; i < r; i++) od[i] = FORM_DIMS[p[i]];
                param(g, "x", t, r, FORM_DIMS, "special", 0, 0);
                const char *U = tys(g, t, r, od);
                plumb_buf_puts(&g->body, "  %r = stablehlo.transpose %x, dims = ");
                dim_list(&g->body, p, r);
                plumb_buf_printf(&g->body, " : (%s) -> %s\n", tys(g, t, r, FORM_DIMS), U);
                g->ret_types = U;
                ok = push_case(g, "%r");
                if (!ok) break;
            }
            int i = (int)r - 2;
            while (i >= 0 && p[i] > p[i + 1]) i--;
            if (i < 0) break;
            int j = (int)r - 1;
            while (p[j] < p[i]) j--;
            uint32_t tmp = p[i]; p[i] = p[j]; p[j] = tmp;
            for (int a = i + 1, b = (int)r - 1; a < b; a++, b--) { tmp = p[a]; p[a] = p[b]; p[b] = tmp; }
        }
    }
    return ok;
}

/* broadcast_in_dim into rank 4: every injective map of an operand of rank
 * 0..4 (dims need not increase), operand dimension i of size 1 (expanded)
 * when (map[i] + i) % 3 == 2, else the result's size. */
static bool bcast_rec(gen *g, uint32_t *map, uint32_t k, uint32_t r, uint32_t used)
{
    if (k == r) {
        char fn[40];
        form_name(fn, sizeof fn, "map", map, r);
        if (!form_begin(g, PLUMB_F32, "r4", "special", fn)) return true;
        int64_t in[4];
        for (uint32_t i = 0; i < r; i++) in[i] = (map[i] + i) % 3 == 2 ? 1 : FORM_DIMS[map[i]];
        param(g, "x", PLUMB_F32, r, in, "special", 0, 0);
        const char *U = tys(g, PLUMB_F32, 4, FORM_DIMS);
        plumb_buf_puts(&g->body, "  %r = stablehlo.broadcast_in_dim %x, dims = ");
        dim_list(&g->body, map, r);
        plumb_buf_printf(&g->body, " : (%s) -> %s\n", tys(g, PLUMB_F32, r, in), U);
        g->ret_types = U;
        return push_case(g, "%r");
    }
    for (uint32_t d = 0; d < 4; d++) {
        if (used & (1u << d)) continue;
        map[k] = d;
        if (!bcast_rec(g, map, k + 1, r, used | (1u << d))) return false;
    }
    return true;
}

static bool forms_broadcast(gen *g)
{
    uint32_t map[4];
    for (uint32_t r = 0; r <= 4; r++)
        if (!bcast_rec(g, map, 0, r, 0)) return false;
    return true;
}

/* concatenate of 1..4 operands along each dimension of a rank-3 shape,
 * operand k of size k + 1 along it. */
static bool forms_concatenate(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    for (uint32_t n = 1; n <= 4; n++)
        for (uint32_t dim = 0; dim < 3; dim++) {
            char fn[40];
            snprintf(fn, sizeof fn, "n%u_dim%u", n, dim);
            if (!form_begin(g, t, "r3", "special", fn)) continue;
            int64_t od[3] = {2, 3, 4};
            od[dim] = 0;
            plumb_buf names, types;
            plumb_buf_init(&names);
            plumb_buf_init(&types);
            for (uint32_t k = 0; k < n; k++) {
                int64_t d[3] = {2, 3, 4};
                d[dim] = k + 1;
                od[dim] += d[dim];
                char pn[16];
                snprintf(pn, sizeof pn, "x%u", k);
                param(g, pn, t, 3, d, "special", 0, 0);
                plumb_buf_printf(&names, "%s%%%s", k ? ", " : "", pn);
                plumb_buf_printf(&types, "%s%s", k ? ", " : "", tys(g, t, 3, d));
            }
            const char *U = tys(g, t, 3, od);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %s, dim = %u : (%s) -> %s\n",
                             names.data ? names.data : "", dim, types.data ? types.data : "", U);
            plumb_buf_free(&names);
            plumb_buf_free(&types);
            g->ret_types = U;
            if (!push_case(g, "%r")) return false;
        }
    return true;
}

static bool forms_iota(gen *g)
{
    static const plumb_dtype ts[] = {PLUMB_F32, PLUMB_I32};
    for (uint32_t k = 0; k < LEN(ts); k++)
        for (uint32_t r = 1; r <= 4; r++)
            for (uint32_t dim = 0; dim < r; dim++) {
                char fn[40], sh[8];
                snprintf(fn, sizeof fn, "r%u_dim%u", r, dim);
                snprintf(sh, sizeof sh, "r%u", r);
                const char *shape = plumb_arena_strdup(g->out->arena, sh);
                if (!shape) return false;
                if (!form_begin(g, ts[k], shape, "none", fn)) continue;
                const char *T = tys(g, ts[k], r, FORM_DIMS);
                plumb_buf_printf(&g->body, "  %%r = stablehlo.iota dim = %u : %s\n", dim, T);
                g->ret_types = T;
                if (!push_case(g, "%r")) return false;
            }
    return true;
}

/* clamp with a scalar min, a scalar max or both, in every type. */
static bool forms_clamp(gen *g, plumb_dtype t)
{
    static const char *fns[] = {"scalar_lo", "scalar_hi", "scalar_both"};
    int64_t n = 22;
    for (uint32_t f = 0; f < 3; f++) {
        if (!form_begin(g, t, "odd", data_class(t), fns[f])) continue;
        bool slo = f != 1, shi = f != 0;
        const char *T = tys(g, t, 1, &n), *T0 = tys(g, t, 0, NULL);
        param(g, "lo", t, slo ? 0 : 1, &n, data_class(t), 0, 0);
        plumb_tensor *x = param(g, "x", t, 1, &n, data_class(t), 0, 0);
        plumb_tensor *hi = param(g, "hi", t, shi ? 0 : 1, &n, data_class(t), 0, 0);
        /* scalar bounds from the middle of the class, x the whole class */
        if (x && hi && shi && !plumb_dtype_is_bool(t))
            plumb_store_bits(t, hi->data, 0, plumb_dtype_is_float(t) ? fbits(t, 2.0) : int_boundary(t, 8));
        plumb_buf_printf(&g->body, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : (%s, %s, %s) -> %s\n", slo ? T0 : T, T,
                         shi ? T0 : T, T);
        g->ret_types = T;
        if (!push_case(g, "%r")) return false;
    }
    return true;
}

/* compare: every direction × every comparison type the element type
 * allows, on every pair of the type's special or edge values. */
static bool forms_compare(gen *g, plumb_dtype t)
{
    static const char *const ct_float[] = {"FLOAT", "TOTALORDER"}, *const ct_s[] = {"SIGNED"}, *const ct_u[] = {"UNSIGNED"};
    const char *const *cts = plumb_dtype_is_float(t) ? ct_float : plumb_dtype_is_signed(t) ? ct_s : ct_u;
    uint32_t nct = plumb_dtype_is_float(t) ? 2 : 1;
    uint64_t vals[32];
    uint32_t nv;
    if (plumb_dtype_is_float(t)) nv = conf_float_specials(t, vals);
    else if (plumb_dtype_is_bool(t)) { vals[0] = 0; vals[1] = 1; nv = 2; }
    else { nv = 10; for (uint32_t i = 0; i < nv; i++) vals[i] = int_boundary(t, i); }
    int64_t n = (int64_t)nv * nv;
    for (uint32_t c = 0; c < nct; c++)
        for (uint32_t dir = 0; dir < 6; dir++) {
            char fn[40];
            snprintf(fn, sizeof fn, "%s_%s", cmp_dirs[dir], cts[c]);
            for (char *p = fn; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
            if (!form_begin(g, t, "pairs", data_class(t), fn)) continue;
            plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
            plumb_tensor *y = param(g, "y", t, 1, &n, NULL, 0, 0);
            if (x && y)
                for (int64_t i = 0; i < n; i++) {
                    plumb_store_bits(t, x->data, (size_t)i, vals[i / nv]);
                    plumb_store_bits(t, y->data, (size_t)i, vals[i % nv]);
                }
            const char *T = tys(g, t, 1, &n), *I1 = tys(g, PLUMB_I1, 1, &n);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, %s : (%s, %s) -> %s\n", cmp_dirs[dir],
                             cts[c], T, T, I1);
            g->ret_types = I1;
            if (!push_case(g, "%r")) return false;
        }
    return true;
}

/* reduce over every non-empty dimension subset of ranks 1..4 (add body,
 * special data, init +0). */
static bool forms_reduce_dims(gen *g)
{
    plumb_dtype t = PLUMB_F32;
    static const int64_t rd[4] = {2, 3, 2, 3};
    for (uint32_t r = 1; r <= 4; r++) {
        char sh[8];
        snprintf(sh, sizeof sh, "r%u", r);
        const char *shape = plumb_arena_strdup(g->out->arena, sh);
        if (!shape) return false;
        for (uint32_t m = 1; m < (1u << r); m++) {
            uint32_t v[4], n = 0, orank = 0;
            int64_t od[4];
            for (uint32_t i = 0; i < r; i++) {
                if (m & (1u << i)) v[n++] = i;
                else od[orank++] = rd[i];
            }
            char fn[40], pre[16];
            snprintf(pre, sizeof pre, "r%u_dims", r);
            form_name(fn, sizeof fn, pre, v, n);
            if (!form_begin(g, t, shape, "special", fn)) continue;
            param(g, "x", t, r, rd, "special", 0, 0);
            param(g, "c", t, 0, NULL, NULL, 0, 0); /* +0: the identity of add */
            const char *U = tys(g, t, orank, od);
            plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = ");
            dim_list(&g->body, v, n);
            plumb_buf_printf(&g->body, " : (%s, %s) -> %s\n", tys(g, t, r, rd), tys(g, t, 0, NULL), U);
            g->ret_types = U;
            if (!push_case(g, "%r")) return false;
        }
    }
    return true;
}

/* Rows whose reduction does not depend on the order under any recognised
 * body: one NaN, infinities of one or both signs, zeros of mixed sign,
 * the largest finite twice (sums overflow in every order), subnormals. */
static void special_rows(plumb_dtype t, plumb_tensor *x, int64_t rows, int64_t len)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = 1ull << (di->bits - 1), expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
    uint64_t qnan = expm | qbit(di) | 3, one = fbits(t, 1.0), two = fbits(t, 2.0), half = fbits(t, 0.5);
    uint64_t maxf = expm - 1;
    uint64_t pat[][4] = {
        {qnan, one, two, half}, {expm, one, two | sign, half}, {expm, expm | sign, one, one},
        {sign, sign, sign, sign}, {sign, 0, sign, sign}, {expm | sign, one | sign, two | sign, half},
        {maxf, maxf, one, two}, {1, 1 | sign, 2, one}, {0, 0, 0, 0}, {qnan | sign, expm | sign, 0, sign},
    };
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < len; k++)
            plumb_store_bits(t, x->data, (size_t)(r * len + k), pat[r % LEN(pat)][k % 4]);
}

/* Every recognised reduce body on special values (floats) or edge values
 * (integers), and a two-operand argmax under TOTALORDER on bit-distinct
 * specials (a total order: its result does not depend on the order). */
static bool forms_reduce_bodies(gen *g, plumb_dtype t)
{
    static const plumb_opcode fb[] = {PLUMB_OP_ADD, PLUMB_OP_MULTIPLY, PLUMB_OP_MAXIMUM, PLUMB_OP_MINIMUM, PLUMB_OP_AND, PLUMB_OP_OR};
    bool f = plumb_dtype_is_float(t);
    uint32_t nb = f ? 4 : 6;
    int64_t rows = 10, len = 4, xd[2] = {rows, len};
    for (uint32_t k = 0; k < nb; k++) {
        const char *bn = plumb_op_name(fb[k]) + strlen("stablehlo.");
        char fn[40];
        snprintf(fn, sizeof fn, "body_%s", bn);
        if (!form_begin(g, t, "rows", data_class(t), fn)) continue;
        plumb_tensor *x = param(g, "x", t, 2, xd, f ? NULL : "boundary", 0, 0);
        plumb_tensor *c = param(g, "c", t, 0, NULL, NULL, 0, 0);
        if (x && f) special_rows(t, x, rows, len);
        if (c) {
            uint64_t init = 0;
            switch (fb[k]) {
            case PLUMB_OP_MULTIPLY: init = f ? fbits(t, 1.0) : 1; break;
            case PLUMB_OP_MAXIMUM: init = f ? fbits(t, -INFINITY) : plumb_dtype_is_signed(t) ? int_boundary(t, 3) : 0; break;
            case PLUMB_OP_MINIMUM: init = f ? fbits(t, INFINITY) : int_boundary(t, 4); break;
            case PLUMB_OP_AND: init = int_boundary(t, 2); break; /* all ones */
            default: break;
            }
            plumb_store_bits(t, c->data, 0, init);
        }
        const char *U = tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = [1] : (%s, %s) -> %s\n",
                         plumb_op_name(fb[k]), tys(g, t, 2, xd), tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!push_case(g, "%r")) return false;
    }
    if (t != PLUMB_F32) return true;
    /* maximum and minimum with a random init that is no identity: however
     * often a backend applies the init, the result is max(init, row) */
    for (uint32_t k = 2; k < 4; k++) {
        char fn[40];
        snprintf(fn, sizeof fn, "body_%s_init", plumb_op_name(fb[k]) + strlen("stablehlo."));
        if (!form_begin(g, t, "rows", "special", fn)) continue;
        plumb_tensor *x = param(g, "x", t, 2, xd, NULL, 0, 0);
        param(g, "c", t, 0, NULL, "normal", 0, 0);
        if (x) special_rows(t, x, rows, len);
        const char *U = tys(g, t, 1, xd);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies %s across dimensions = [1] : (%s, %s) -> %s\n",
                         plumb_op_name(fb[k]), tys(g, t, 2, xd), tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!push_case(g, "%r")) return false;
    }
    if (!form_begin(g, t, "rows", "special", "argmax")) return true;
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(t, sp);
    int64_t ad[2] = {4, ns};
    plumb_tensor *x = param(g, "x", t, 2, ad, NULL, 0, 0);
    plumb_tensor *ix = param(g, "i", PLUMB_I32, 2, ad, NULL, 0, 0);
    plumb_tensor *c = param(g, "c", t, 0, NULL, NULL, 0, 0);
    plumb_tensor *ci = param(g, "ci", PLUMB_I32, 0, NULL, NULL, 0, 0);
    if (x && ix && c && ci) {
        /* row r: the specials rotated by 5r (each row a permutation), index = column */
        for (int64_t r = 0; r < 4; r++)
            for (int64_t k = 0; k < (int64_t)ns; k++) {
                plumb_store_bits(t, x->data, (size_t)(r * ns + k), sp[(k + 5 * r) % ns]);
                plumb_store_bits(PLUMB_I32, ix->data, (size_t)(r * ns + k), (uint64_t)k);
            }
        plumb_store_bits(t, c->data, 0, fbits(t, -INFINITY) | 0); /* below everything but -NaN in total order */
        plumb_store_bits(PLUMB_I32, ci->data, 0, (uint64_t)(uint32_t)-1);
    }
    const char *X = tys(g, t, 2, ad), *XI = tys(g, PLUMB_I32, 2, ad), *U = tys(g, t, 1, ad), *UI = tys(g, PLUMB_I32, 1, ad);
    plumb_buf_printf(&g->body,
                     "  %%r:2 = stablehlo.reduce(%%x init: %%c), (%%i init: %%ci) across dimensions = [1] : (%s, %s, tensor<f32>, tensor<i32>) -> (%s, %s)\n"
                     "   reducer(%%a: tensor<f32>, %%b: tensor<f32>) (%%ai: tensor<i32>, %%bi: tensor<i32>) {\n"
                     "    %%gt = stablehlo.compare GT, %%a, %%b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
                     "    %%v = stablehlo.select %%gt, %%a, %%b : tensor<i1>, tensor<f32>\n"
                     "    %%w = stablehlo.select %%gt, %%ai, %%bi : tensor<i1>, tensor<i32>\n"
                     "    stablehlo.return %%v, %%w : tensor<f32>, tensor<i32>\n"
                     "  }\n", X, XI, U, UI);
    set_ret_types2(g, U, UI);
    return push_case(g, "%r#0, %r#1");
}

/* sort with an i32 index payload and a float payload holding NaNs with
 * payloads, so that stability and the carrying of payloads are observable:
 * stable FLOAT comparators (LT and GT) on keys with repeats and ±0 (no NaN
 * key: FLOAT is no strict weak order with NaNs) along each dimension;
 * stable TOTALORDER on keys with repeated NaNs; unstable TOTALORDER on
 * bit-distinct keys (the only order an unstable sort defines); stable
 * SIGNED/UNSIGNED comparators on repeated integer keys. */
static bool forms_sort(gen *g, plumb_dtype t)
{
    static const int64_t sd[3] = {4, 6, 5};
    const char *fns[8];
    uint32_t nf = 0;
    bool f = plumb_dtype_is_float(t);
    if (f) {
        fns[nf++] = "stable_lt_float_dim0"; fns[nf++] = "stable_lt_float_dim1"; fns[nf++] = "stable_lt_float_dim2";
        fns[nf++] = "stable_gt_float"; fns[nf++] = "stable_lt_totalorder"; fns[nf++] = "unstable_lt_totalorder";
    } else {
        fns[nf++] = plumb_dtype_is_signed(t) ? "stable_lt_signed" : "stable_lt_unsigned";
    }
    const plumb_dtype_info *di = plumb_dtype_get(t);
    for (uint32_t k = 0; k < nf; k++) {
        if (!form_begin(g, t, "r3", data_class(t), fns[k])) continue;
        int dim = !strncmp(fns[k], "stable_lt_float_dim", 19) ? fns[k][19] - '0' : 2;
        bool stable = fns[k][0] == 's', total = strstr(fns[k], "totalorder") != NULL;
        const char *dir = strstr(fns[k], "_gt_") ? "GT" : "LT";
        const char *ct = f ? (total ? "TOTALORDER" : "FLOAT") : plumb_dtype_is_signed(t) ? "SIGNED" : "UNSIGNED";
        int64_t n = sd[0] * sd[1] * sd[2];
        plumb_tensor *key = param(g, "k", t, 3, sd, NULL, 0, 0);
        plumb_tensor *idx = param(g, "i", PLUMB_I32, 3, sd, NULL, 0, 0);
        plumb_tensor *pay = param(g, "p", PLUMB_F32, 3, sd, "special", 0, 0);
        if (!key || !idx || !pay) return push_case(g, "");
        uint64_t sign = 1ull << (di->bits - 1);
        for (int64_t i = 0; i < n; i++) {
            uint64_t b;
            if (!f) b = int_boundary(t, (uint64_t)gsl_rng_uniform_int(g->rng, 4)); /* few values: many ties */
            else if (!stable) {
                /* bit-distinct: the i-th value of a spread of magnitudes, both signs,
                 * ±0, ±inf and NaNs of distinct payloads */
                uint64_t expm = ((1ull << di->exp_bits) - 1) << di->mant_bits;
                if (i < 4) b = (i & 1 ? sign : 0) | (i < 2 ? 0 : expm);
                else if (i < 12) b = (i & 1 ? sign : 0) | expm | qbit(di) | (uint64_t)i;
                else b = (i & 1 ? sign : 0) | (fbits(t, 1.0) + (uint64_t)i * 977);
            } else {
                static const double pool[] = {0.0, -0.0, 1.0, -1.0, 2.5, INFINITY, -INFINITY, 1.0, 0.0};
                b = fbits(t, pool[gsl_rng_uniform_int(g->rng, LEN(pool))]);
                if (total && gsl_rng_uniform_int(g->rng, 5) == 0) /* NaNs of two payloads, both signs */
                    b = ((1ull << di->exp_bits) - 1) << di->mant_bits | qbit(di) |
                        gsl_rng_uniform_int(g->rng, 2) | (gsl_rng_uniform_int(g->rng, 2) ? sign : 0);
            }
            plumb_store_bits(t, key->data, (size_t)i, b);
            plumb_store_bits(PLUMB_I32, idx->data, (size_t)i, (uint64_t)i);
        }
        if (!stable) /* a fixed scramble of the distinct keys */
            for (int64_t i = n - 1; i > 0; i--) {
                int64_t j = (int64_t)gsl_rng_uniform_int(g->rng, (unsigned long)(i + 1));
                uint64_t a = plumb_load_bits(t, key->data, (size_t)i), c = plumb_load_bits(t, key->data, (size_t)j);
                plumb_store_bits(t, key->data, (size_t)i, c);
                plumb_store_bits(t, key->data, (size_t)j, a);
            }
        const char *T = tys(g, t, 3, sd), *TI = tys(g, PLUMB_I32, 3, sd), *TP = tys(g, PLUMB_F32, 3, sd);
        const char *T0 = tys(g, t, 0, NULL);
        plumb_buf_printf(&g->body,
                         "  %%r:3 = \"stablehlo.sort\"(%%k, %%i, %%p) <{dimension = %d : i64, is_stable = %s}> ({\n"
                         "    ^bb0(%%a: %s, %%b: %s, %%ai: tensor<i32>, %%bi: tensor<i32>, %%ap: tensor<f32>, %%bp: tensor<f32>):\n"
                         "      %%lt = stablehlo.compare %s, %%a, %%b, %s : (%s, %s) -> tensor<i1>\n"
                         "      stablehlo.return %%lt : tensor<i1>\n"
                         "    }) : (%s, %s, %s) -> (%s, %s, %s)\n",
                         dim, stable ? "true" : "false", T0, T0, dir, ct, T0, T0, T, TI, TP, T, TI, TP);
        char *rt = plumb_arena_array(g->out->arena, strlen(T) + strlen(TI) + strlen(TP) + 5, 1);
        if (rt) sprintf(rt, "%s, %s, %s", T, TI, TP);
        else g->failed = true;
        g->ret_types = rt ? rt : "";
        if (!push_case(g, "%r#0, %r#1, %r#2")) return false;
    }
    return true;
}

/* pad with negative low/high padding (cropping), interior padding, both,
 * and a cropping that empties a dimension; the pad value a NaN with a
 * payload. */
static bool forms_pad(gen *g)
{
    static const struct { const char *name; int64_t lo[2], hi[2], in[2]; } pf[] = {
        {"neg_low", {-1, -2}, {0, 1}, {0, 0}},
        {"neg_high", {1, 0}, {-2, -1}, {0, 0}},
        {"interior", {0, 1}, {1, 0}, {2, 1}},
        {"neg_interior", {-2, -1}, {-1, -3}, {1, 2}},
        {"neg_to_empty", {-2, 0}, {-2, 1}, {0, 0}},
        {"interior_one_side", {3, -4}, {0, 2}, {1, 1}},
    };
    plumb_dtype t = PLUMB_F32;
    int64_t xd[2] = {4, 5};
    const plumb_dtype_info *di = plumb_dtype_get(t);
    for (uint32_t k = 0; k < LEN(pf); k++) {
        if (!form_begin(g, t, "r2", "special", pf[k].name)) continue;
        int64_t od[2];
        for (int i = 0; i < 2; i++) od[i] = pf[k].lo[i] + pf[k].hi[i] + xd[i] + (xd[i] - 1) * pf[k].in[i];
        param(g, "x", t, 2, xd, "special", 0, 0);
        plumb_tensor *v = param(g, "v", t, 0, NULL, NULL, 0, 0);
        if (v) plumb_store_bits(t, v->data, 0, (((1ull << di->exp_bits) - 1) << di->mant_bits) | qbit(di) | 9);
        const char *U = tys(g, t, 2, od);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.pad %%x, %%v, low = [%lld, %lld], high = [%lld, %lld], interior = [%lld, %lld] : (%s, %s) -> %s\n",
                         (long long)pf[k].lo[0], (long long)pf[k].lo[1], (long long)pf[k].hi[0], (long long)pf[k].hi[1],
                         (long long)pf[k].in[0], (long long)pf[k].in[1], tys(g, t, 2, xd), tys(g, t, 0, NULL), U);
        g->ret_types = U;
        if (!push_case(g, "%r")) return false;
    }
    return true;
}

static bool gen_forms(gen *g)
{
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    switch (g->op) {
    case PLUMB_OP_TRANSPOSE: case PLUMB_OP_REVERSE: ok = forms_transpose_reverse(g); break;
    case PLUMB_OP_BROADCAST_IN_DIM: ok = forms_broadcast(g); break;
    case PLUMB_OP_CONCATENATE: ok = forms_concatenate(g); break;
    case PLUMB_OP_IOTA: ok = forms_iota(g); break;
    case PLUMB_OP_PAD: ok = forms_pad(g); break;
    case PLUMB_OP_REDUCE:
        ok = forms_reduce_dims(g);
        for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
            plumb_dtype t = (plumb_dtype)ti;
            if ((oi->types & PLUMB_TY_BIT(t)) && (plumb_dtype_is_float(t) || t == PLUMB_I32 || t == PLUMB_UI32))
                ok = forms_reduce_bodies(g, t);
        }
        break;
    case PLUMB_OP_SORT:
        ok = forms_sort(g, PLUMB_F32) && forms_sort(g, PLUMB_I32) && forms_sort(g, PLUMB_UI32);
        break;
    case PLUMB_OP_CLAMP: case PLUMB_OP_COMPARE:
        for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
            if (oi->types & PLUMB_TY_BIT(ti))
                ok = g->op == PLUMB_OP_CLAMP ? forms_clamp(g, (plumb_dtype)ti) : forms_compare(g, (plumb_dtype)ti);
        break;
    default: break;
    }
    g->form = NULL;
    return ok && !g->failed;
}

/* ---- operand-crossed dots (docs/conformance.md, "Operand classes crossed") ------------
 * x entirely from class A, y entirely from class B. The other families never
 * make the two operands of a dot differ in class as whole operands (gen_dot
 * fills both from one class, gen_cross_contract puts every class in both),
 * so a backend that picks a kernel by a rule over each whole operand (e.g.
 * "no subnormal can matter when the other operand is >= 2^15", the rule
 * that sent subnormal bf16 operands to a DAZ instruction) was never
 * exercised on the side of the rule that breaks. Ids
 * "<op>/<type>/<shape>/opcross/<A>_<B>", after every other family. */

const char *const conf_opcross_pairs[CONF_OPCROSS_PAIRS][2] = {
    {"subnormal", "large"}, {"large", "subnormal"}, {"subnormal", "normal"},
    {"normal", "subnormal"}, {"special", "subnormal"}, {"subnormal", "special"},
};

/* The binade [2^E, 2^(E+1)) of the "large" class: about the square root of
 * the largest finite value, but at least 2^15 (the threshold of that rule),
 * so E = max(15, emax / 2): f16 15, bf16 and f32 63, f64 511. A large value
 * is only ever multiplied by a subnormal here, and the product of the
 * smallest subnormal 2^(1 - emax - mant) by 2^E is far above the result
 * type's smallest subnormal (f16: 2^-9, bf16: 2^-70, f32: 2^-86, f64:
 * 2^-563), while the largest, below 2^(1 - emax) * 2^(E + 1), is far below
 * 1, so the exact products neither underflow nor overflow. */
int conf_opcross_large_exp(plumb_dtype t)
{
    int emax = (1 << (plumb_dtype_get(t)->exp_bits - 1)) - 1;
    return emax / 2 > 15 ? emax / 2 : 15;
}

static uint64_t opcross_value(gen *g, plumb_dtype t, const char *cls, uint64_t i)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sign = gsl_rng_uniform(g->rng) < 0.5 ? 1ull << (di->bits - 1) : 0;
    uint64_t mant = random_bits(g, di->mant_bits);
    int bias = (1 << (di->exp_bits - 1)) - 1;
    if (!strcmp(cls, "subnormal")) return (mant ? mant : 1) | sign;   /* every element a nonzero subnormal */
    if (!strcmp(cls, "large"))
        return ((uint64_t)(conf_opcross_large_exp(t) + bias) << di->mant_bits) | mant | sign;
    if (!strcmp(cls, "normal")) {
        /* normal(0, 1) values; the rare one that rounds to 0 or a subnormal becomes 1 */
        uint64_t b = fbits(t, gsl_ran_gaussian(g->rng, 1.0));
        uint64_t mag = b & ((1ull << (di->bits - 1)) - 1);
        return mag < (1ull << di->mant_bits) ? fbits(t, 1.0) : b;
    }
    uint64_t sp[32];
    uint32_t n = conf_float_specials(t, sp);
    return sp[i % n];
}

static bool opcross_case(gen *g, plumb_dtype t, const char *shape, uint32_t pair)
{
    g->t = t; g->target = t; g->shape = shape; g->value = "opcross"; g->rep = 0;
    g->opcross = NULL;
    gsl_rng_set(g->rng, (unsigned long)(mix64(g->seed ^ mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    char nm[32];
    snprintf(nm, sizeof nm, "%s_%s", conf_opcross_pairs[pair][0], conf_opcross_pairs[pair][1]);
    g->opcross = plumb_arena_strdup(g->out->arena, nm);
    if (!g->opcross) g->failed = true;
    shp l = {2, {7, 13}}, r = {2, {13, 5}}, o = {2, {7, 5}};
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(shape, "dimnums")) {
        l = (shp){3, {2, 5, 3}}; r = (shp){3, {3, 2, 4}}; o = (shp){3, {2, 5, 4}};
        dn = "batching_dims = [0] x [1], contracting_dims = [2] x [0]";
    }
    plumb_tensor *x = param(g, "x", t, l.rank, l.dims, NULL, 0, 0);
    plumb_tensor *y = param(g, "y", t, r.rank, r.dims, NULL, 0, 0);
    if (x && y) {
        for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
            plumb_store_bits(t, x->data, i, opcross_value(g, t, conf_opcross_pairs[pair][0], i));
        for (uint64_t i = 0, n = plumb_tensor_numel(y); i < n; i++)
            plumb_store_bits(t, y->data, i, opcross_value(g, t, conf_opcross_pairs[pair][1], i * 7 + 3));
    }
    const char *U = tys(g, t, o.rank, o.dims);
    if (g->op == PLUMB_OP_DOT)
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", tys(g, t, l.rank, l.dims),
                         tys(g, t, r.rank, r.dims), U);
    else
        plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                         tys(g, t, l.rank, l.dims), tys(g, t, r.rank, r.dims), U);
    g->ret_types = U;
    bool ok = push_case(g, "%r");
    g->opcross = NULL;
    return ok;
}

/* Every float type of dot and dot_general: the plain form ("odd") and, for
 * dot_general, the batched one ("dimnums"), each pair once. */
static bool gen_opcross(gen *g)
{
    if (g->op != PLUMB_OP_DOT && g->op != PLUMB_OP_DOT_GENERAL) return true;
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || !plumb_dtype_is_float(t)) continue;
        for (uint32_t s = 0; ok && s < (g->op == PLUMB_OP_DOT ? 1u : 2u); s++)
            for (uint32_t p = 0; ok && p < CONF_OPCROSS_PAIRS; p++) ok = opcross_case(g, t, s ? "dimnums" : "odd", p);
    }
    return ok && !g->failed;
}

/* ---- polymorphic cases (docs/conformance.md, "Polymorphic shapes") ---------------------
 * Shapes with -1 dims are `?` bounded by CONF_POLY_BOUND, and the inputs
 * have g->dyn_n there. A shape operand is a parameter whose values the
 * generator sets, so that the sizes arrive at run time like any input. */

static void shape_param(gen *g, const char *name, plumb_dtype it, const int64_t *v, int64_t k)
{
    plumb_tensor *x = param(g, name, it, 1, &k, NULL, 0, 0);
    if (x)
        for (int64_t i = 0; i < k; i++) plumb_store_bits(it, x->data, (uint64_t)i, (uint64_t)v[i]);
}

/* The dynamic ops at size n = g->dyn_n: each with its sizes from shape
 * operands (or, for get_dimension_size, read off its operand), results
 * typed `?` with a bound (dynamic_pad's first dim can reach twice the
 * bound: -2). The reference runs these programs as written. */
static bool gen_dynamic(gen *g)
{
    plumb_dtype t = g->t;
    int64_t n = g->dyn_n;
    const char *vc = g->value;
    plumb_buf *b = &g->body;
    shp x = {2, {-1, 3}};
    const char *X = tys(g, t, x.rank, x.dims);
    const char *S3 = "tensor<3xi64>", *S2 = "tensor<2xi64>";
    switch (g->op) {
    case PLUMB_OP_GET_DIMENSION_SIZE:
        param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        plumb_buf_printf(b, "  %%r = stablehlo.get_dimension_size %%x, dim = 0 : (%s) -> tensor<i32>\n", X);
        g->ret_types = "tensor<i32>";
        break;
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        /* [n, 3] -> [2, n, 3] */
        int64_t sv[3] = {2, n, 3};
        shp o = {3, {2, -1, 3}};
        param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        shape_param(g, "s", PLUMB_I64, sv, 3);
        const char *O = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_broadcast_in_dim %%x, %%s, dims = [1, 2] : (%s, %s) -> %s\n", X,
                         S3, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_RESHAPE: {
        /* [n, 3] -> [3, n]: the same elements in row-major order */
        int64_t sv[2] = {3, n};
        shp o = {2, {3, -1}};
        param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        shape_param(g, "s", PLUMB_I32, sv, 2);
        const char *O = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_reshape %%x, %%s : (%s, tensor<2xi32>) -> %s\n", X, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_IOTA: {
        int64_t sv[2] = {n, 3};
        shape_param(g, "s", PLUMB_I64, sv, 2);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_iota %%s, dim = 0 : (%s) -> %s\n", S2, X);
        g->ret_types = X;
        break;
    }
    case PLUMB_OP_REAL_DYNAMIC_SLICE: {
        /* dim 0: [1, n-1) step 2 when there is room, else all of it; dim 1: [1, 4) step 2 of 5 */
        int64_t s0 = n > 2 ? 1 : 0, l0 = n > 3 ? n - 1 : n, st0 = n > 4 ? 2 : 1;
        int64_t st[2] = {s0, 1}, li[2] = {l0, 4}, sd[2] = {st0, 2};
        shp xs = {2, {-1, 5}}, o = {2, {-1, 2}};
        const char *XS = tys(g, t, xs.rank, xs.dims);
        param(g, "x", t, xs.rank, xs.dims, vc, 0, 0);
        shape_param(g, "a", PLUMB_I64, st, 2);
        shape_param(g, "l", PLUMB_I64, li, 2);
        shape_param(g, "k", PLUMB_I64, sd, 2);
        const char *O = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.real_dynamic_slice %%x, %%a, %%l, %%k : (%s, %s, %s, %s) -> %s\n", XS, S2,
                         S2, S2, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_PAD: {
        /* dim 0: low 1, interior 1 (1 + n + (n - 1) elements, at most 2 * bound);
         * dim 1: low -1 (cropping), high 2, interior 1: 3 -> 6 */
        int64_t lo[2] = {1, -1}, hi[2] = {0, 2}, in[2] = {1, 1};
        shp o = {2, {-2, 6}};
        param(g, "x", t, x.rank, x.dims, vc, 0, 0);
        param(g, "v", t, 0, NULL, vc, 0, 0);
        shape_param(g, "lo", PLUMB_I64, lo, 2);
        shape_param(g, "hi", PLUMB_I64, hi, 2);
        shape_param(g, "in", PLUMB_I64, in, 2);
        const char *O = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = stablehlo.dynamic_pad %%x, %%v, %%lo, %%hi, %%in : (%s, %s, %s, %s, %s) -> %s\n", X,
                         tys(g, t, 0, NULL), S2, S2, S2, O);
        g->ret_types = O;
        break;
    }
    case PLUMB_OP_DYNAMIC_GATHER: {
        /* n rows of a 7x13 operand, indices partly out of range (clamped) */
        int64_t ss[2] = {1, 13};
        shp xs = {2, {7, 13}}, ix = {2, {-1, 1}}, o = {2, {-1, 13}};
        param(g, "x", t, xs.rank, xs.dims, vc, 0, 0);
        param(g, "i", PLUMB_I32, ix.rank, ix.dims, NULL, -1, 7);
        shape_param(g, "s", PLUMB_I64, ss, 2);
        const char *O = tys(g, t, o.rank, o.dims);
        plumb_buf_printf(b, "  %%r = \"stablehlo.dynamic_gather\"(%%x, %%i, %%s) <{dimension_numbers = #stablehlo.gather<"
                         "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> "
                         ": (%s, %s, %s) -> %s\n",
                         tys(g, t, xs.rank, xs.dims), tys(g, PLUMB_I32, ix.rank, ix.dims), S2, O);
        g->ret_types = O;
        break;
    }
    default:
        g->failed = true;
        plumb_diag_set(g->d, PLUMB_ERR_UNSUPPORTED, (plumb_loc){0, 0}, "no generator for %s", plumb_op_name(g->op));
    }
    return push_case(g, "%r");
}

static bool one_case(gen *g, plumb_dtype t, const char *sc, const char *vc, uint32_t rep, plumb_dtype target);

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
         * (fill's classes do not cover them) */
        bool own = plumb_dtype_is_complex(g->t) || plumb_dtype_is_lowp(g->t);
        plumb_tensor *a = param(g, "a", g->t, sa.rank, sa.dims, own ? NULL : "uniform", 0, 0);
        if (a && !conf_linalg_fill(g->op, g->value, a, g->rng)) g->failed = true;
        X = tys(g, g->t, sa.rank, sa.dims);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.cholesky %%a%s : %s\n", strcmp(sc, "upper") ? ", lower = true" : "", X);
        g->ret_types = X;
        return push_case(g, "%r");
    }
    bool left = true, lower = true, unit = false;
    const char *tr = "NO_TRANSPOSE";
    if (!strcmp(sc, "left_upper_trans_unit")) { lower = false; unit = true; tr = "TRANSPOSE"; }
    else if (!strcmp(sc, "right_lower_adjoint")) { left = false; tr = "ADJOINT"; sb = (shp){2, {3, 5}}; }
    else if (!strcmp(sc, "right_upper_unit")) { left = false; lower = false; unit = true; sb = (shp){2, {3, 5}}; }
    else if (!strcmp(sc, "batch")) { sa = (shp){4, {2, 3, 4, 4}}; sb = (shp){4, {2, 3, 4, 2}}; tr = "TRANSPOSE"; }
    else if (!strcmp(sc, "empty")) { sa = (shp){2, {0, 0}}; sb = (shp){2, {0, 3}}; }
    bool own = plumb_dtype_is_complex(g->t) || plumb_dtype_is_lowp(g->t);
    plumb_tensor *a = param(g, "a", g->t, sa.rank, sa.dims, own ? NULL : "uniform", 0, 0);
    if (a && !conf_linalg_fill(g->op, g->value, a, g->rng)) g->failed = true;
    plumb_tensor *b = param(g, "b", g->t, sb.rank, sb.dims, own ? NULL : "uniform", 0, 0);
    if (b && own) conf_linalg_fill_rhs(b, g->rng);
    const char *A = tys(g, g->t, sa.rank, sa.dims);
    X = tys(g, g->t, sb.rank, sb.dims);
    plumb_buf_printf(&g->body,
                     "  %%r = \"stablehlo.triangular_solve\"(%%a, %%b) <{left_side = %s, lower = %s, "
                     "transpose_a = #stablehlo<transpose %s>, unit_diagonal = %s}> : (%s, %s) -> %s\n",
                     left ? "true" : "false", lower ? "true" : "false", tr, unit ? "true" : "false", A, X, X);
    g->ret_types = X;
    return push_case(g, "%r");
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
    plumb_tensor *a = param(g, "a", xt, R, F[i].dims, NULL, 0, 0);
    if (a && !conf_fft_fill(g->value, a, g->rng)) g->failed = true;
    const char *X = tys(g, xt, R, F[i].dims), *Y = tys(g, yt, R, rd);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.fft %%a, type = %s, length = [", F[i].type);
    for (uint32_t d = 0; d < F[i].k; d++) plumb_buf_printf(&g->body, "%s%lld", d ? ", " : "", (long long)F[i].len[d]);
    plumb_buf_printf(&g->body, "] : (%s) -> %s\n", X, Y);
    g->ret_types = Y;
    return push_case(g, "%r");
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
        in[i] = param(g, train || inf ? nm_inf[i] : nm_grad[i], g->t, full ? R : 1, full ? D : &F, "uniform", 0, 0);
        if (!in[i]) return push_case(g, "%r");
    }
    if (!conf_bn_fill(g->op, g->value, fi, in, n, g->rng)) g->failed = true;
    const char *X = tys(g, g->t, R, D), *V = tys(g, g->t, 1, &F);
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
        return push_case(g, "%r");
    }
    plumb_buf_printf(&g->body, ") -> (%s, %s, %s)\n", X, V, V);
    char *rt = plumb_arena_array(g->out->arena, strlen(X) + 2 * strlen(V) + 5, 1);
    if (!rt) { g->failed = true; return push_case(g, "%r#0"); }
    sprintf(rt, "%s, %s, %s", X, V, V);
    g->ret_types = rt;
    return push_case(g, "%r#0, %r#1, %r#2");
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
        for (uint32_t k = 0; ok && k < CONF_POLY_N_SIZES; k++) ok = one_case(g, t, conf_poly_classes[k], vc, 0, target);
    }
    return ok && !g->failed;
}

/* ---- complex values (docs/spec/complex.md; docs/conformance.md "Complex") ----
 * The ops that take complex values elementwise, on complex<f32> and
 * complex<f64>, one rank-1 case per value class, after every other family
 * (so no older case's ordinal moves): "normal" (components from N(0, 1)),
 * "loguniform" (components over the whole exponent range, random signs),
 * "small" (components near 2^-20: expm1, log1p, sin, ... of a small
 * argument), "special" (every pair of the component type's special values,
 * x crossed with a reversed y for binary ops) and, for multiply, "cancel"
 * (ac ≈ bd: the real part cancels, which a dropped or misrounded product
 * shows). */
static const char *const V_COMPLEX[] = {"normal", "loguniform", "small", "special", "cancel"};

bool conf_complex_family_op(plumb_opcode op)
{
    if (op == PLUMB_OP_REAL || op == PLUMB_OP_IMAG) return true;
    const plumb_op_info *oi = plumb_op_get(op);
    return ir_complex_arith(op) && oi->kind == PLUMB_KIND_ELEMENTWISE && op != PLUMB_OP_COMPARE &&
           op != PLUMB_OP_CONVERT && op != PLUMB_OP_SELECT && op != PLUMB_OP_IOTA &&
           op != PLUMB_OP_ATAN2 &&   /* no runtime bound yet (docs/spec/complex.md) */
           (oi->arity == 1 || oi->arity == 2 || op == PLUMB_OP_CLAMP);
}

uint32_t conf_complex_classes(plumb_opcode op)
{
    return conf_complex_family_op(op) ? (op == PLUMB_OP_MULTIPLY ? 5 : 4) : 0;
}

static double complex_component(gen *g, plumb_dtype ct, const char *vc)
{
    if (!strcmp(vc, "loguniform")) {
        int emax = ct == PLUMB_F32 ? 127 : 1023;
        double v = exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * (emax - 2));
        return gsl_rng_uniform(g->rng) < 0.5 ? -v : v;
    }
    if (!strcmp(vc, "small")) return ldexp(gsl_ran_gaussian(g->rng, 1.0), -20);
    return gsl_ran_gaussian(g->rng, 1.0);
}

static void complex_store(plumb_tensor *x, uint64_t i, plumb_dtype ct, double re, double im)
{
    plumb_store_bits(ct, x->data, 2 * i, fbits(ct, re));
    plumb_store_bits(ct, x->data, 2 * i + 1, fbits(ct, im));
}

static bool complex_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    const plumb_op_info *oi = plumb_op_get(g->op);
    bool binary = oi->arity == 2, special = !strcmp(g->value, "special");
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(ct, sp);
    bool pw = g->op == PLUMB_OP_POWER;
    if (pw) {
        /* the runtime's power bound holds for |w log z| < 2^6 (docs/spec/
         * complex.md): its special values are the zeros (the pole) and the
         * finite ones of modest size */
        uint32_t m = 0;
        for (uint32_t i = 0; i < ns; i++) {
            double v = fabs(plumb_load_f64(ct, (uint64_t[]){sp[i]}, 0));
            if (v == 0 || (v >= 0.09 && v <= 3)) sp[m++] = sp[i];
        }
        ns = m;
    }
    int64_t n = special ? (int64_t)ns * ns : 37;
    /* clamp: operands (lo, x, hi), lo and hi drawn like y */
    bool clamp = g->op == PLUMB_OP_CLAMP;
    plumb_tensor *lo = clamp ? param(g, "lo", t, 1, &n, NULL, 0, 0) : NULL;
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = binary || clamp ? param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || ((binary || clamp) && !y) || (clamp && !lo)) return push_case(g, "%r");
    for (int64_t i = 0; clamp && i < n; i++) {
        if (special) {
            /* every special pair again, in another order than x's and y's */
            uint64_t a = (uint64_t)i / ns, b = (uint64_t)i % ns;
            plumb_store_bits(ct, lo->data, 2 * (uint64_t)i, sp[(a + b) % ns]);
            plumb_store_bits(ct, lo->data, 2 * (uint64_t)i + 1, sp[b]);
        } else {
            double a = complex_component(g, ct, g->value), b = complex_component(g, ct, g->value);
            complex_store(lo, (uint64_t)i, ct, a, b);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (special) {
            uint64_t a = (uint64_t)i / ns, b = (uint64_t)i % ns;
            plumb_store_bits(ct, x->data, 2 * (uint64_t)i, sp[a]);
            plumb_store_bits(ct, x->data, 2 * (uint64_t)i + 1, sp[b]);
            if (y) {
                plumb_store_bits(ct, y->data, 2 * (uint64_t)i, sp[ns - 1 - b]);
                plumb_store_bits(ct, y->data, 2 * (uint64_t)i + 1, sp[ns - 1 - a]);
            }
            continue;
        }
        double a = complex_component(g, ct, g->value), b = complex_component(g, ct, g->value);
        if (pw && !strcmp(g->value, "loguniform")) {
            /* |log z| <= 28 and |w| < 2.2: |w log z| < 2^6 */
            a = copysign(exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * 40), a);
            b = copysign(exp2((gsl_rng_uniform(g->rng) * 2.0 - 1.0) * 40), b);
        }
        complex_store(x, (uint64_t)i, ct, a, b);
        if (!y) continue;
        double c = complex_component(g, ct, g->value), d = complex_component(g, ct, g->value);
        if (pw && !strcmp(g->value, "loguniform")) {
            c = gsl_rng_uniform(g->rng) * 3.0 - 1.5;
            d = gsl_rng_uniform(g->rng) * 3.0 - 1.5;
        }
        /* cancel: d = ac/b rounded, so that ac - bd is a rounding error of ac */
        if (!strcmp(g->value, "cancel") && b != 0) d = plumb_load_f64(ct, (uint64_t[]){fbits(ct, a * c / b)}, 0);
        complex_store(y, (uint64_t)i, ct, c, d);
    }
    const char *T = tys(g, t, 1, &n);
    if (g->op == PLUMB_OP_ABS || g->op == PLUMB_OP_REAL || g->op == PLUMB_OP_IMAG) {
        const char *R = tys(g, ct, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, R);
        g->ret_types = R;
    } else if (clamp) {
        plumb_buf_printf(&g->body, "  %%r = %s %%lo, %%x, %%y : %s\n", oi->name, T);
        g->ret_types = T;
    } else if (binary) {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
    return push_case(g, "%r");
}

static bool gen_complex(gen *g)
{
    uint32_t nc = conf_complex_classes(g->op);
    bool ok = true;
    for (int k = 0; ok && nc && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t v = 0; ok && v < nc; v++) ok = depth_case(g, t, t, V_COMPLEX[v], complex_case);
    }
    return ok;
}

/* ---- complex sums and dots (docs/spec/complex.md, "Sums and dots") ----
 * reduce with an add body over one, two and three dimensions of a 4x6x5
 * complex tensor, and dot_general matrix·vector, matrix·matrix and batched,
 * on complex<f32> and complex<f64>, after every other family. Value classes:
 * "normal" (components from N(0, 1)) and "cancel": for a reduce, every
 * other reduced element is the negation of its neighbour in the same sum
 * (components near 2^10) plus a term near 2^-10, so each component's sum is
 * small beside Σ|x|; for a dot, bi = ar·br/ai rounded, so every product's
 * real part ar·br − ai·bi is a rounding error of ar·br. Judged by the
 * per-component bound of conformance/check.c's check_csum. */
static const char *const CSUM_VALUES[] = {"normal", "cancel"};

uint32_t conf_complex_sum_cases(plumb_opcode op)
{
    return op == PLUMB_OP_REDUCE || op == PLUMB_OP_DOT_GENERAL ? 2 * 3 * 2 : 0;
}

static bool csum_reduce_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const int64_t xd[3] = {4, 6, 5};
    const char *dims;
    int pd;
    shp o;
    if (!strcmp(g->shape, "d1")) { pd = 1; dims = "[1]"; o = (shp){2, {4, 5}}; }
    else if (!strcmp(g->shape, "d2")) { pd = 0; dims = "[0, 2]"; o = (shp){1, {6}}; }
    else { pd = 1; dims = "[0, 1, 2]"; o = (shp){0, {0}}; }
    plumb_tensor *x = param(g, "x", t, 3, xd, NULL, 0, 0);
    plumb_tensor *c = param(g, "c", t, 0, NULL, NULL, 0, 0);
    if (!x || !c) return push_case(g, "%r");
    complex_store(c, 0, ct, 0.0, 0.0);
    bool cancel = !strcmp(g->value, "cancel");
    for (int64_t a = 0; a < 4; a++)
        for (int64_t b = 0; b < 6; b++)
            for (int64_t e = 0; e < 5; e++) {
                uint64_t i = (uint64_t)((a * 6 + b) * 5 + e);
                /* pairs along reduced dimension pd (of even length): an
                 * element at an odd coordinate cancels its neighbour at
                 * the even one below, which the same sum holds */
                int64_t co[3] = {a, b, e};
                if (!cancel || co[pd] % 2 == 0) {
                    double s = cancel ? 1024.0 : 1.0;
                    complex_store(x, i, ct, s * gsl_ran_gaussian(g->rng, 1.0), s * gsl_ran_gaussian(g->rng, 1.0));
                    continue;
                }
                co[pd]--;
                uint64_t pi = (uint64_t)((co[0] * 6 + co[1]) * 5 + co[2]);
                double pr = plumb_load_f64(ct, x->data, 2 * pi), pm = plumb_load_f64(ct, x->data, 2 * pi + 1);
                complex_store(x, i, ct, -pr + ldexp(gsl_ran_gaussian(g->rng, 1.0), -10),
                              -pm + ldexp(gsl_ran_gaussian(g->rng, 1.0), -10));
            }
    const char *U = tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = %s : (%s, %s) -> %s\n",
                     dims, tys(g, t, 3, xd), tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

static bool csum_dot_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    shp l, r, o;
    const char *dn = "contracting_dims = [1] x [0]";
    if (!strcmp(g->shape, "mv")) { l = (shp){2, {7, 13}}; r = (shp){1, {13}}; o = (shp){1, {7}}; }
    else if (!strcmp(g->shape, "mm")) { l = (shp){2, {7, 13}}; r = (shp){2, {13, 5}}; o = (shp){2, {7, 5}}; }
    else {
        l = (shp){3, {3, 7, 13}}; r = (shp){3, {3, 13, 5}}; o = (shp){3, {3, 7, 5}};
        dn = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
    }
    plumb_tensor *x = param(g, "x", t, l.rank, l.dims, NULL, 0, 0);
    plumb_tensor *y = param(g, "y", t, r.rank, r.dims, NULL, 0, 0);
    if (!x || !y) return push_case(g, "%r");
    uint64_t nx = plumb_tensor_numel(x), ny = plumb_tensor_numel(y);
    for (uint64_t i = 0; i < nx; i++)
        complex_store(x, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
    bool cancel = !strcmp(g->value, "cancel");
    for (uint64_t i = 0; i < ny; i++) {
        double br = gsl_ran_gaussian(g->rng, 1.0), bi = gsl_ran_gaussian(g->rng, 1.0);
        if (cancel) {
            /* every lhs element in this rhs element's products: the one in
             * the same batch at the same contracting index and row 0 */
            int64_t kk = r.rank == 1 ? (int64_t)i : r.rank == 2 ? (int64_t)i / r.dims[1] : ((int64_t)i / r.dims[2]) % r.dims[1];
            int64_t bt = r.rank == 3 ? (int64_t)i / (r.dims[1] * r.dims[2]) : 0;
            uint64_t li = (uint64_t)(bt * l.dims[l.rank - 2] * l.dims[l.rank - 1] + kk);
            double ar = plumb_load_f64(ct, x->data, 2 * li), ai = plumb_load_f64(ct, x->data, 2 * li + 1);
            if (ai != 0) bi = plumb_load_f64(ct, (uint64_t[]){fbits(ct, ar * br / ai)}, 0);
        }
        complex_store(y, i, ct, br, bi);
    }
    const char *R = tys(g, t, o.rank, o.dims);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, %s : (%s, %s) -> %s\n", dn,
                     tys(g, t, l.rank, l.dims), tys(g, t, r.rank, r.dims), R);
    g->ret_types = R;
    return push_case(g, "%r");
}

static bool csum_d1(gen *g) { g->shape = "d1"; return csum_reduce_case(g); }
static bool csum_d2(gen *g) { g->shape = "d2"; return csum_reduce_case(g); }
static bool csum_d3(gen *g) { g->shape = "d3"; return csum_reduce_case(g); }
static bool csum_mv(gen *g) { g->shape = "mv"; return csum_dot_case(g); }
static bool csum_mm(gen *g) { g->shape = "mm"; return csum_dot_case(g); }
static bool csum_batch(gen *g) { g->shape = "batch"; return csum_dot_case(g); }

static bool gen_complex_sum(gen *g)
{
    if (!conf_complex_sum_cases(g->op)) return true;
    bool ok = true;
    static bool (*const red[3])(gen *) = {csum_d1, csum_d2, csum_d3};
    static bool (*const dot[3])(gen *) = {csum_mv, csum_mm, csum_batch};
    for (int k = 0; ok && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t s = 0; ok && s < 3; s++)
            for (uint32_t v = 0; ok && v < 2; v++)
                ok = depth_case(g, t, t, CSUM_VALUES[v], g->op == PLUMB_OP_REDUCE ? red[s] : dot[s]);
    }
    return ok;
}
/* ---- convolution on complex and the small types (conformance/gen_conv_types.c) ----
 * Every type, shape and value class conf_conv_types_* lists, after every
 * other family; gen_conv and gen_dynconv write the programs. */
static bool conv_types_case(gen *g)
{
    g->shape = g->conv_shape;
    return g->op == PLUMB_OP_DYNAMIC_CONV ? gen_dynconv(g) : gen_conv(g);
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
                /* depth_case names the shape "odd": set it in the case function */
                g->conv_shape = sh[s];
                ok = depth_case(g, (plumb_dtype)ti, (plumb_dtype)ti, vs[v], conv_types_case);
            }
    }
    g->conv_shape = NULL;
    return ok;
}

/* ---- complex values through the ops that compare, select, sort, scatter
 * and move them (docs/spec/complex.md; docs/conformance.md "Complex") ----
 * On complex<f32> and complex<f64>, after every other family: compare in
 * each direction (lexicographic on (re, im) for LT, LE, GT, GE), select,
 * sort (a complex LT comparator with an i32 payload, and a comparator on the
 * real parts alone; stable), scatter with a replacing region and distinct
 * indices, select_and_scatter with a complex GE select and a replacing
 * scatter over windows that do not overlap, reverse, pad, concatenate and
 * transpose. Every case is exact (the result is one well-defined choice or
 * copy per element), judged per component. Value class "ties": components
 * from {-2, -1, -0, +0, 0.5, 1, 3} (plus NaN and +-inf except for sort's
 * keys), so real parts tie often and the imaginary part decides. */
static const char *const CPLX_DIRS[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

uint32_t conf_complex_ops_cases(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_COMPARE: return 2 * 6;
    case PLUMB_OP_SORT: return 2 * 2;
    case PLUMB_OP_SELECT: case PLUMB_OP_SCATTER: case PLUMB_OP_SELECT_AND_SCATTER: case PLUMB_OP_REVERSE:
    case PLUMB_OP_PAD: case PLUMB_OP_CONCATENATE: case PLUMB_OP_TRANSPOSE:
        return 2;
    default: return 0;
    }
}

static void cplx_ties(gen *g, plumb_tensor *x, bool specials)
{
    static const double pool[] = {-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, NAN, INFINITY, -INFINITY};
    unsigned long np = specials ? 10 : 7;
    for (uint64_t i = 0, n = plumb_tensor_numel(x); i < n; i++)
        plumb_complex_store(x->dtype, x->data, (size_t)i, pool[gsl_rng_uniform_int(g->rng, np)],
                            pool[gsl_rng_uniform_int(g->rng, np)]);
}

static plumb_tensor *cplx_param(gen *g, const char *name, uint32_t rank, const int64_t *dims, bool specials)
{
    plumb_tensor *x = param(g, name, g->t, rank, dims, NULL, 0, 0);
    if (x) cplx_ties(g, x, specials);
    return x;
}

static bool cplx_op_case(gen *g)
{
    plumb_dtype t = g->t;
    const char *C = tys(g, t, 0, NULL);
    static const int64_t d2[2] = {3, 5}, d9[2] = {2, 9}, sn[1] = {40};
    const char *T2 = tys(g, t, 2, d2);
    switch (g->op) {
    case PLUMB_OP_COMPARE: {
        g->shape = CPLX_DIRS[g->rep];
        if (!cplx_param(g, "x", 1, sn, true) || !cplx_param(g, "y", 1, sn, true)) break;
        const char *T = tys(g, t, 1, sn), *B = tys(g, PLUMB_I1, 1, sn);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, FLOAT : (%s, %s) -> %s\n", g->shape, T, T, B);
        g->ret_types = B;
        return push_case(g, "%r");
    }
    case PLUMB_OP_SELECT: {
        plumb_tensor *p = param(g, "p", PLUMB_I1, 2, d2, NULL, 0, 1);
        if (!p || !cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, d2, true)) break;
        plumb_buf_printf(&g->body, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", tys(g, PLUMB_I1, 2, d2), T2);
        g->ret_types = T2;
        return push_case(g, "%r");
    }
    case PLUMB_OP_SORT: {
        g->shape = g->rep ? "by_real" : "lex";
        if (!cplx_param(g, "k", 2, d9, false) || !param(g, "v", PLUMB_I32, 2, d9, NULL, -1000, 1000)) break;
        const char *K = tys(g, t, 2, d9), *V = tys(g, PLUMB_I32, 2, d9), *F = tys(g, plumb_dtype_component(t), 0, NULL);
        plumb_buf_printf(&g->body,
                         "  %%r:2 = \"stablehlo.sort\"(%%k, %%v) <{dimension = 1 : i64, is_stable = true}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s, %%i: tensor<i32>, %%j: tensor<i32>):\n", C, C);
        if (g->rep)
            plumb_buf_printf(&g->body,
                             "    %%ar = stablehlo.real %%a : (%s) -> %s\n"
                             "    %%br = stablehlo.real %%b : (%s) -> %s\n"
                             "    %%c = stablehlo.compare GT, %%ar, %%br, FLOAT : (%s, %s) -> tensor<i1>\n",
                             C, F, C, F, F, F);
        else
            plumb_buf_printf(&g->body, "    %%c = stablehlo.compare LT, %%a, %%b, FLOAT : (%s, %s) -> tensor<i1>\n", C, C);
        plumb_buf_printf(&g->body, "    stablehlo.return %%c : tensor<i1>\n  }) : (%s, %s) -> (%s, %s)\n", K, V, K, V);
        plumb_buf b;
        plumb_buf_init(&b);
        plumb_buf_printf(&b, "%s, %s", K, V);
        const char *rt = plumb_arena_strdup(g->out->arena, b.data ? b.data : "");
        plumb_buf_free(&b);
        if (!rt) { g->failed = true; break; }
        g->ret_types = rt;
        return push_case(g, "%r#0, %r#1");
    }
    case PLUMB_OP_SCATTER: {
        /* 5 distinct targets of 8 (a shuffled prefix), one index past the end */
        static const int64_t s8[1] = {8}, di[2] = {6, 1}, su[1] = {6};
        plumb_tensor *x = cplx_param(g, "x", 1, s8, true);
        plumb_tensor *ix = param(g, "i", PLUMB_I32, 2, di, NULL, 0, 0);
        plumb_tensor *u = cplx_param(g, "u", 1, su, true);
        if (!x || !ix || !u) break;
        int32_t perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        gsl_ran_shuffle(g->rng, perm, 8, sizeof perm[0]);
        perm[5] = 8 + (int32_t)gsl_rng_uniform_int(g->rng, 4);   /* outside: the update is skipped */
        for (int k = 0; k < 6; k++) plumb_store_bits(PLUMB_I32, ix->data, (size_t)k, (uint64_t)(uint32_t)perm[k]);
        const char *X = tys(g, t, 1, s8), *U = tys(g, t, 1, su);
        plumb_buf_printf(&g->body,
                         "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                         "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,"
                         " unique_indices = true}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n    stablehlo.return %%b : %s\n"
                         "  }) : (%s, tensor<6x1xi32>, %s) -> %s\n", C, C, C, X, U, X);
        g->ret_types = X;
        return push_case(g, "%r");
    }
    case PLUMB_OP_SELECT_AND_SCATTER: {
        static const int64_t dx[2] = {4, 6}, ds[2] = {2, 2};
        if (!cplx_param(g, "x", 2, dx, true) || !cplx_param(g, "s", 2, ds, true) || !cplx_param(g, "z", 0, NULL, true))
            break;
        const char *X = tys(g, t, 2, dx), *S = tys(g, t, 2, ds);
        plumb_buf_printf(&g->body,
                         "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%z) <{window_dimensions = array<i64: 2, 3>,"
                         " window_strides = array<i64: 2, 3>}> ({\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n"
                         "    %%c = stablehlo.compare GE, %%a, %%b, FLOAT : (%s, %s) -> tensor<i1>\n"
                         "    stablehlo.return %%c : tensor<i1>\n"
                         "  }, {\n"
                         "  ^bb0(%%a: %s, %%b: %s):\n    stablehlo.return %%b : %s\n"
                         "  }) : (%s, %s, %s) -> %s\n", C, C, C, C, C, C, C, X, S, C, X);
        g->ret_types = X;
        return push_case(g, "%r");
    }
    case PLUMB_OP_REVERSE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reverse %%x, dims = [0, 1] : %s\n", T2);
        g->ret_types = T2;
        return push_case(g, "%r");
    case PLUMB_OP_PAD: {
        static const int64_t dp[2] = {6, 11};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "p", 0, NULL, true)) break;
        const char *P = tys(g, t, 2, dp);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.pad %%x, %%p, low = [1, 0], high = [0, 2], interior = [1, 1] : (%s, %s) -> %s\n",
                         T2, C, P);
        g->ret_types = P;
        return push_case(g, "%r");
    }
    case PLUMB_OP_CONCATENATE: {
        static const int64_t dy[2] = {3, 2}, dr[2] = {3, 7};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, dy, true)) break;
        const char *R = tys(g, t, 2, dr);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.concatenate %%x, %%y, dim = 1 : (%s, %s) -> %s\n", T2,
                         tys(g, t, 2, dy), R);
        g->ret_types = R;
        return push_case(g, "%r");
    }
    case PLUMB_OP_TRANSPOSE: {
        static const int64_t dt[2] = {5, 3};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        const char *R = tys(g, t, 2, dt);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.transpose %%x, dims = [1, 0] : (%s) -> %s\n", T2, R);
        g->ret_types = R;
        return push_case(g, "%r");
    }
    default:
        break;
    }
    g->failed = true;
    return push_case(g, "%r");
}

static bool gen_complex_ops(gen *g)
{
    uint32_t per = conf_complex_ops_cases(g->op) / 2;
    bool ok = true;
    for (int k = 0; ok && per && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        for (uint32_t v = 0; ok && v < per; v++) {
            /* seeded as depth_case seeds; rep numbers the op's variants */
            g->t = t; g->target = t; g->shape = "odd"; g->value = "ties"; g->rep = v;
            gsl_rng_set(g->rng, (unsigned long)(mix64(g->seed ^ mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
            bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
            if (!keep) g->ordinal++;
            else ok = cplx_op_case(g);
        }
    }
    return ok;
}

/* ---- the small types' arithmetic (docs/spec/types.md; docs/conformance.md
 * "small types") ---------------------------------------------------------------
 * Each elementwise op of one or two operands that takes an FP8/FP6/FP4 format
 * or i2/i4/ui2/ui4 (ir_lowp_accepts) over every input: every pattern for a
 * unary op, every pair of patterns for a binary one (at most 2^16), one
 * rank-1 case per type, after every other family. */
bool conf_lowp_family_op(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    if (!plumb_dtype_is_lowp(t) || !ir_lowp_accepts(op, t)) return false;
    if (op == PLUMB_OP_REDUCE) return true;   /* an add reduction over every pattern (lowp_reduce_case) */
    if (op == PLUMB_OP_REDUCE_PRECISION) return true;   /* format = e2m1 over every pattern (lowp_case) */
    if (oi->kind != PLUMB_KIND_ELEMENTWISE || oi->syntax != PLUMB_SYN_EW || pred_op(op)) return false;
    return (oi->arity == 1 || oi->arity == 2) && op != PLUMB_OP_CONVERT && op != PLUMB_OP_BITCAST_CONVERT;
}

/* reduce with an add body over x[2^bits x 9]: row r starts with pattern r
 * and continues with patterns of a fixed stride, so every pattern (NaN and
 * infinities too) is summed somewhere; the init value is pattern 0. */
static bool lowp_reduce_case(gen *g)
{
    plumb_dtype t = g->t;
    uint64_t np = 1ull << plumb_dtype_get(t)->bits;
    int64_t d[2] = {(int64_t)np, 9}, r1 = (int64_t)np;
    plumb_tensor *x = param(g, "x", t, 2, d, NULL, 0, 0);
    if (!x) return push_case(g, "%r");
    for (uint64_t i = 0; i < np; i++)
        for (uint64_t j = 0; j < 9; j++)
            plumb_store_bits(t, x->data, i * 9 + j, (i + j * 37) % np);
    const char *X = tys(g, t, 2, d), *R = tys(g, t, 1, &r1), *S = tys(g, t, 0, NULL);
    plumb_buf_printf(&g->body, "  %%c = stablehlo.constant dense<%s> : %s\n", plumb_fpfmt_get(t) ? "0x0" : "0", S);
    plumb_buf_printf(&g->body,
                     "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.add across dimensions = [1] : (%s, %s) -> %s\n",
                     X, S, R);
    g->ret_types = R;
    return push_case(g, "%r");
}

static bool lowp_case(gen *g)
{
    plumb_dtype t = g->t;
    if (g->op == PLUMB_OP_REDUCE) return lowp_reduce_case(g);
    const plumb_op_info *oi = plumb_op_get(g->op);
    uint64_t np = 1ull << plumb_dtype_get(t)->bits;
    /* zeta and polygamma cost MPFR evaluations of up to milliseconds per
     * pair (a far negative q): on the 8-bit formats every first operand
     * with every 4th pattern of the second, so a case stays well inside the
     * per-case timeout on a loaded machine (docs/spec/special2.md) */
    uint64_t ystep = (g->op == PLUMB_OP_ZETA || g->op == PLUMB_OP_POLYGAMMA) && np == 256 ? 4 : 1;
    int64_t n = (int64_t)(oi->arity == 2 ? np * (np / ystep) : np);
    plumb_tensor *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = oi->arity == 2 ? param(g, "y", t, 1, &n, NULL, 0, 0) : NULL;
    if (!x || (oi->arity == 2 && !y)) return push_case(g, "%r");
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        plumb_store_bits(t, x->data, i, i % np);
        if (y) plumb_store_bits(t, y->data, i, (i / np) * ystep + (i / np) % ystep);
    }
    const char *T = tys(g, t, 1, &n);
    if (y) plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
    /* e2m1 both rounds and overflows/flushes in every small format */
    else if (g->op == PLUMB_OP_REDUCE_PRECISION) plumb_buf_printf(&g->body, "  %%r = %s %%x, format = e2m1 : %s\n", oi->name, T);
    else plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
    g->ret_types = T;
    return push_case(g, "%r");
}

static bool gen_lowp(gen *g)
{
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
        if (conf_lowp_family_op(g->op, (plumb_dtype)ti))
            ok = depth_case(g, (plumb_dtype)ti, (plumb_dtype)ti, "every", lowp_case);
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
    if (!c) { g->failed = true; return push_case(g, "%r"); }
    int64_t ld[2] = {7, 13}, rd[2] = {13, 5}, od[2] = {7, 5};
    plumb_tensor *x = param(g, "x", g->t, 2, ld, NULL, 0, 0);
    plumb_tensor *y = param(g, "y", g->t, 2, rd, NULL, 0, 0);
    if (x && y && (!conf_dotalg_fill(x, g->rng) || !conf_dotalg_fill(y, g->rng))) g->failed = true;
    char attr[400];
    conf_dotalg_attr(c, attr, sizeof attr);
    const char *U = tys(g, g->t, 2, od);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0], %s : (%s, %s) -> %s\n",
                     attr, tys(g, g->t, 2, ld), tys(g, g->t, 2, rd), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

static bool gen_dotalg(gen *g)
{
    bool ok = true;
    for (size_t i = 0; ok && g->op == PLUMB_OP_DOT_GENERAL && i < conf_dotalg_n_cases; i++)
        ok = depth_case(g, conf_dotalg_cases[i].operand, conf_dotalg_cases[i].operand, conf_dotalg_cases[i].name,
                        dotalg_case);
    return ok;
}

/* ---- complex values through the other ops that move, index, pass, map
 * and window them (docs/spec/complex.md; docs/conformance.md
 * "Complex") ----
 * On complex<f32> and complex<f64>, one case per op and type, value class
 * "ties" (cplx_ties: components from a small set with NaN and +-inf), after
 * every other family: slice, reshape, broadcast_in_dim, dynamic_slice and
 * dynamic_update_slice (start indices partly out of range), gather,
 * optimization_barrier, constant (the data as a literal), iota, the
 * bitcast_convert to and from component vectors, map (an add body),
 * reduce_window with a maximum body (lexicographic, exact) and its -inf
 * init, all exact, per component; stablehlo.dot (7x13 · 13, components
 * from N(0, 1); the per-component dot bound of check.c's complex dots);
 * atan2 (catan2_case, two classes);
 * real x complex dot_general (cmixed_case); and reduce with a multiply
 * body (cprod_case). */
uint32_t conf_complex_more_cases(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_SLICE: case PLUMB_OP_RESHAPE: case PLUMB_OP_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_GATHER: case PLUMB_OP_OPTIMIZATION_BARRIER:
    case PLUMB_OP_CONSTANT: case PLUMB_OP_IOTA: case PLUMB_OP_BITCAST_CONVERT: case PLUMB_OP_MAP:
    case PLUMB_OP_REDUCE_WINDOW: case PLUMB_OP_DOT:
        return 2;
    /* the shape-operand ops, their shapes as constants (docs/spec/dynamic.md) */
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE: case PLUMB_OP_REAL_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_PAD: case PLUMB_OP_DYNAMIC_GATHER:
        return 2;
    case PLUMB_OP_ATAN2:
        return 4;   /* normal, scaled (catan2_case) */
    case PLUMB_OP_DOT_GENERAL:
        return 4;   /* real x complex, complex x real (cmixed_case) */
    case PLUMB_OP_REDUCE:
        return 6;   /* multiply body over 1, 2, 3 dims (cprod_case) */
    default:
        return 0;
    }
}

static bool cmore_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const int64_t d2[2] = {3, 5}, d22[2] = {2, 2}, d23[2] = {2, 3}, d53[2] = {5, 3}, d5[1] = {5};
    const char *C = tys(g, t, 0, NULL), *T2 = tys(g, t, 2, d2);
    plumb_buf *b = &g->body;
    switch (g->op) {
    case PLUMB_OP_SLICE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = tys(g, t, 2, d22);
        plumb_buf_printf(b, "  %%r = stablehlo.slice %%x [0:3:2, 1:5:2] : (%s) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    case PLUMB_OP_RESHAPE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = tys(g, t, 2, d53);
        plumb_buf_printf(b, "  %%r = stablehlo.reshape %%x : (%s) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    case PLUMB_OP_BROADCAST_IN_DIM:
        if (!cplx_param(g, "x", 1, d5, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.broadcast_in_dim %%x, dims = [1] : (%s) -> %s\n", tys(g, t, 1, d5), T2);
        return push_case(g, "%r");
    case PLUMB_OP_DYNAMIC_SLICE:
    case PLUMB_OP_DYNAMIC_UPDATE_SLICE: {
        bool upd = g->op == PLUMB_OP_DYNAMIC_UPDATE_SLICE;
        if (!cplx_param(g, "x", 2, d2, true) || (upd && !cplx_param(g, "u", 2, d23, true))) break;
        /* start indices partly out of range: the op clamps them */
        if (!param(g, "i0", PLUMB_I32, 0, NULL, NULL, -2, 4) || !param(g, "i1", PLUMB_I32, 0, NULL, NULL, -2, 6)) break;
        const char *W = tys(g, t, 2, d23);
        if (upd) {
            g->ret_types = T2;
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_update_slice %%x, %%u, %%i0, %%i1 : (%s, %s, tensor<i32>, "
                             "tensor<i32>) -> %s\n", T2, W, T2);
        } else {
            g->ret_types = W;
            plumb_buf_printf(b, "  %%r = stablehlo.dynamic_slice %%x, %%i0, %%i1, sizes = [2, 3] : (%s, tensor<i32>, "
                             "tensor<i32>) -> %s\n", T2, W);
        }
        return push_case(g, "%r");
    }
    case PLUMB_OP_GATHER: {
        static const int64_t di[2] = {4, 1}, d45[2] = {4, 5};
        if (!cplx_param(g, "x", 2, d2, true) || !param(g, "i", PLUMB_I32, 2, di, NULL, -1, 4)) break;
        g->ret_types = tys(g, t, 2, d45);
        plumb_buf_printf(b, "  %%r = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<"
                         "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                         "slice_sizes = array<i64: 1, 5>}> : (%s, tensor<4x1xi32>) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    }
    case PLUMB_OP_OPTIMIZATION_BARRIER:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.optimization_barrier %%x : %s\n", T2);
        return push_case(g, "%r");
    case PLUMB_OP_CONSTANT: {
        plumb_tensor *tmp = plumb_tensor_new(t, 2, d2, 0, g->d);
        if (!tmp) break;
        cplx_ties(g, tmp, true);
        plumb_buf_puts(b, "  %r = stablehlo.constant ");
        plumb_dense_print(b, tmp, true);
        plumb_buf_printf(b, " : %s\n", T2);
        plumb_tensor_free(tmp);
        g->ret_types = T2;
        return push_case(g, "%r");
    }
    case PLUMB_OP_IOTA:
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = stablehlo.iota dim = 1 : %s\n", T2);
        return push_case(g, "%r");
    case PLUMB_OP_BITCAST_CONVERT: {
        /* complex<fN> -> tensor<...x2xfN> and back: the components in memory order */
        static const int64_t d3[3] = {3, 5, 2};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        const char *V = tys(g, ct, 3, d3);
        plumb_buf_printf(b, "  %%v = stablehlo.bitcast_convert %%x : (%s) -> %s\n"
                            "  %%w = stablehlo.bitcast_convert %%v : (%s) -> %s\n", T2, V, V, T2);
        plumb_buf pb;
        plumb_buf_init(&pb);
        plumb_buf_printf(&pb, "%s, %s", V, T2);
        g->ret_types = plumb_arena_strdup(g->out->arena, pb.data ? pb.data : "");
        plumb_buf_free(&pb);
        if (!g->ret_types) break;
        return push_case(g, "%v, %w");
    }
    case PLUMB_OP_MAP:
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "y", 2, d2, true)) break;
        g->ret_types = T2;
        plumb_buf_printf(b, "  %%r = \"stablehlo.map\"(%%x, %%y) ({\n"
                            "  ^bb0(%%a: %s, %%c: %s):\n"
                            "    %%s = stablehlo.add %%a, %%c : %s\n"
                            "    stablehlo.return %%s : %s\n"
                            "  }) {dimensions = array<i64: 0, 1>} : (%s, %s) -> %s\n", C, C, C, C, T2, T2, T2);
        return push_case(g, "%r");
    case PLUMB_OP_REDUCE_WINDOW: {
        static const int64_t dx[2] = {4, 6}, dr[2] = {2, 2};
        if (!cplx_param(g, "x", 2, dx, false)) break;
        plumb_tensor *z = param(g, "z", t, 0, NULL, NULL, 0, 0);
        if (!z) break;
        plumb_complex_store(t, z->data, 0, -INFINITY, -INFINITY);
        const char *X = tys(g, t, 2, dx);
        g->ret_types = tys(g, t, 2, dr);
        plumb_buf_printf(b, "  %%r = \"stablehlo.reduce_window\"(%%x, %%z) <{padding = dense<[[1, 0], [0, 0]]> : "
                            "tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({\n"
                            "  ^bb0(%%a: %s, %%c: %s):\n"
                            "    %%m = stablehlo.maximum %%a, %%c : %s\n"
                            "    stablehlo.return %%m : %s\n"
                            "  }) : (%s, %s) -> %s\n", C, C, C, C, X, C, g->ret_types);
        return push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: {
        static const int64_t d3[3] = {2, 3, 5};
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = tys(g, t, 3, d3);
        plumb_buf_printf(b, "  %%s = stablehlo.constant dense<[2, 3, 5]> : tensor<3xi64>\n"
                            "  %%r = stablehlo.dynamic_broadcast_in_dim %%x, %%s, dims = [1, 2] : (%s, tensor<3xi64>) -> %s\n",
                         T2, g->ret_types);
        return push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_RESHAPE:
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = tys(g, t, 2, d53);
        plumb_buf_printf(b, "  %%s = stablehlo.constant dense<[5, 3]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.dynamic_reshape %%x, %%s : (%s, tensor<2xi64>) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    case PLUMB_OP_REAL_DYNAMIC_SLICE:
        /* rows 0 and 2, columns 1 and 3 */
        if (!cplx_param(g, "x", 2, d2, true)) break;
        g->ret_types = tys(g, t, 2, d22);
        plumb_buf_printf(b, "  %%a = stablehlo.constant dense<[0, 1]> : tensor<2xi64>\n"
                            "  %%l = stablehlo.constant dense<[3, 5]> : tensor<2xi64>\n"
                            "  %%k = stablehlo.constant dense<[2, 2]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.real_dynamic_slice %%x, %%a, %%l, %%k : (%s, tensor<2xi64>, tensor<2xi64>, "
                            "tensor<2xi64>) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    case PLUMB_OP_DYNAMIC_PAD: {
        /* low [1, 0], high [0, 2], interior [1, 0]: 3x5 -> 6x7, the padding value a tie class value too */
        static const int64_t d67[2] = {6, 7};
        if (!cplx_param(g, "x", 2, d2, true) || !cplx_param(g, "z", 0, NULL, true)) break;
        g->ret_types = tys(g, t, 2, d67);
        plumb_buf_printf(b, "  %%lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>\n"
                            "  %%hi = stablehlo.constant dense<[0, 2]> : tensor<2xi64>\n"
                            "  %%in = stablehlo.constant dense<[1, 0]> : tensor<2xi64>\n"
                            "  %%r = stablehlo.dynamic_pad %%x, %%z, %%lo, %%hi, %%in : (%s, %s, tensor<2xi64>, tensor<2xi64>, "
                            "tensor<2xi64>) -> %s\n", T2, C, g->ret_types);
        return push_case(g, "%r");
    }
    case PLUMB_OP_DYNAMIC_GATHER: {
        static const int64_t di[2] = {4, 1}, d45[2] = {4, 5};
        if (!cplx_param(g, "x", 2, d2, true) || !param(g, "i", PLUMB_I32, 2, di, NULL, -1, 4)) break;
        g->ret_types = tys(g, t, 2, d45);
        plumb_buf_printf(b, "  %%ss = stablehlo.constant dense<[1, 5]> : tensor<2xi32>\n"
                            "  %%r = \"stablehlo.dynamic_gather\"(%%x, %%i, %%ss) <{dimension_numbers = #stablehlo.gather<"
                            "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : "
                            "(%s, tensor<4x1xi32>, tensor<2xi32>) -> %s\n", T2, g->ret_types);
        return push_case(g, "%r");
    }
    case PLUMB_OP_DOT: {
        static const int64_t dl[2] = {7, 13}, dv[1] = {13}, dr[1] = {7};
        plumb_tensor *x = param(g, "x", t, 2, dl, NULL, 0, 0), *y = param(g, "y", t, 1, dv, NULL, 0, 0);
        if (!x || !y) break;
        for (uint64_t i = 0; i < 91; i++)
            complex_store(x, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
        for (uint64_t i = 0; i < 13; i++)
            complex_store(y, i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
        g->ret_types = tys(g, t, 1, dr);
        plumb_buf_printf(b, "  %%r = stablehlo.dot %%x, %%y : (%s, %s) -> %s\n", tys(g, t, 2, dl), tys(g, t, 1, dv),
                         g->ret_types);
        return push_case(g, "%r");
    }
    default:
        break;
    }
    g->failed = true;
    return push_case(g, "%r");
}

/* atan2(y, x) on complex: 37 elements whose components are drawn from
 * N(0, 1) ("normal") or N(0, 1) times one power of two in [2^-40, 2^40]
 * per element ("scaled"), rounded to the component type, and kept only
 * where conf_catan2_accept holds (away from the pole x = +-iy and from the
 * cancellations the runtime's bound excludes, docs/spec/complex.md);
 * judged normwise like the complex family's math ops. */
static bool catan2_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    int64_t n = 37;
    plumb_tensor *y = param(g, "y", t, 1, &n, NULL, 0, 0), *x = param(g, "x", t, 1, &n, NULL, 0, 0);
    if (!x || !y) { g->failed = true; return push_case(g, "%r"); }
    bool scaled = !strcmp(g->value, "scaled");
    for (int64_t i = 0; i < n; i++) {
        double v[4];
        do {
            double k = scaled ? ldexp(1.0, (int)gsl_rng_uniform_int(g->rng, 81) - 40) : 1.0;
            for (int j = 0; j < 4; j++)
                v[j] = plumb_load_f64(ct, (uint64_t[]){fbits(ct, k * gsl_ran_gaussian(g->rng, 1.0))}, 0);
        } while (!conf_catan2_accept(v[0], v[1], v[2], v[3]));
        complex_store(y, (uint64_t)i, ct, v[0], v[1]);
        complex_store(x, (uint64_t)i, ct, v[2], v[3]);
    }
    g->ret_types = tys(g, t, 1, &n);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.atan2 %%y, %%x : %s\n", g->ret_types);
    return push_case(g, "%r");
}

/* real x complex dot_general: 7x13 · 13x5, the real side f32 or f64 (the
 * component type), lhs real ("real_lhs") or rhs real ("real_rhs"),
 * components from N(0, 1); judged per component by check.c's real dot
 * bound (csum_mixed). */
static bool cmixed_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    bool real_lhs = g->rep == 0;
    g->shape = real_lhs ? "real_lhs" : "real_rhs";
    static const int64_t dl[2] = {7, 13}, dr[2] = {13, 5}, dout[2] = {7, 5};
    plumb_tensor *x = param(g, "x", real_lhs ? ct : t, 2, dl, NULL, 0, 0);
    plumb_tensor *y = param(g, "y", real_lhs ? t : ct, 2, dr, NULL, 0, 0);
    if (!x || !y) { g->failed = true; return push_case(g, "%r"); }
    plumb_tensor *v[2] = {x, y};
    for (int k = 0; k < 2; k++)
        for (uint64_t i = 0, n = plumb_tensor_numel(v[k]); i < n; i++) {
            if (plumb_dtype_is_complex(v[k]->dtype))
                complex_store(v[k], i, ct, gsl_ran_gaussian(g->rng, 1.0), gsl_ran_gaussian(g->rng, 1.0));
            else
                plumb_store_bits(ct, v[k]->data, i, fbits(ct, gsl_ran_gaussian(g->rng, 1.0)));
        }
    g->ret_types = tys(g, t, 2, dout);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.dot_general %%x, %%y, contracting_dims = [1] x [0] : (%s, %s) -> %s\n",
                     tys(g, x->dtype, 2, dl), tys(g, y->dtype, 2, dr), g->ret_types);
    return push_case(g, "%r");
}

/* complex reduce with a multiply body over one, two and three dimensions
 * of a 4x6x5 tensor (6, 20 and 120 factors), init (1, 0), each factor of
 * modulus in [0.8, 1.25] and uniform angle (value class "unit"), so no
 * partial product overflows or underflows in any order: judged normwise by
 * check.c's check_cprod. */
static bool cprod_case(gen *g)
{
    plumb_dtype t = g->t, ct = plumb_dtype_component(t);
    static const char *const shapes[3] = {"d1", "d2", "d3"};
    g->shape = shapes[g->rep];
    static const int64_t xd[3] = {4, 6, 5}, o1[2] = {4, 5}, o2[1] = {6};
    const char *dims = g->rep == 0 ? "[1]" : g->rep == 1 ? "[0, 2]" : "[0, 1, 2]";
    plumb_tensor *x = param(g, "x", t, 3, xd, NULL, 0, 0), *c = param(g, "c", t, 0, NULL, NULL, 0, 0);
    if (!x || !c) { g->failed = true; return push_case(g, "%r"); }
    complex_store(c, 0, ct, 1.0, 0.0);
    for (uint64_t i = 0; i < 120; i++) {
        double r = 0.8 + 0.45 * gsl_rng_uniform(g->rng), th = 2 * M_PI * gsl_rng_uniform(g->rng);
        complex_store(x, i, ct, r * cos(th), r * sin(th));
    }
    const char *U = g->rep == 0 ? tys(g, t, 2, o1) : g->rep == 1 ? tys(g, t, 1, o2) : tys(g, t, 0, NULL);
    plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.multiply across dimensions = %s : "
                     "(%s, %s) -> %s\n", dims, tys(g, t, 3, xd), tys(g, t, 0, NULL), U);
    g->ret_types = U;
    return push_case(g, "%r");
}

static bool cprod_d2(gen *g) { g->rep = 1; return cprod_case(g); }
static bool cprod_d3(gen *g) { g->rep = 2; return cprod_case(g); }

static bool cmixed_rhs_case(gen *g)
{
    g->rep = 1;
    return cmixed_case(g);
}

static bool gen_complex_more(gen *g)
{
    bool ok = true;
    for (int k = 0; ok && conf_complex_more_cases(g->op) && k < 2; k++) {
        plumb_dtype t = k ? PLUMB_C128 : PLUMB_C64;
        if (g->op == PLUMB_OP_REDUCE) {
            ok = depth_case(g, t, t, "unit", cprod_case);
            if (ok) ok = depth_case(g, t, t, "unit", cprod_d2);
            if (ok) ok = depth_case(g, t, t, "unit", cprod_d3);
        } else if (g->op == PLUMB_OP_DOT_GENERAL) {
            /* depth_case sets rep 0 (real lhs); cmixed_rhs_case sets 1 */
            ok = depth_case(g, t, t, "normal", cmixed_case);
            if (ok) ok = depth_case(g, t, t, "normal", cmixed_rhs_case);
        } else if (g->op == PLUMB_OP_ATAN2) {
            ok = depth_case(g, t, t, "normal", catan2_case);
            if (ok) ok = depth_case(g, t, t, "scaled", catan2_case);
        } else {
            ok = depth_case(g, t, t, g->op == PLUMB_OP_DOT ? "normal" : "ties", cmore_case);
        }
    }
    return ok;
}

/* ---- the small types through indexing, sort, control flow, windows, ...
 * (docs/conformance.md "Small types") ------------------------------------------
 * The ops that take the FP8/FP6/FP4 formats and i2/i4/ui2/ui4 through
 * ir_lowp_accepts without their table row naming them get no case from the
 * plan's main loop: here each gets one case per shape class of the op and
 * small type, through the op's own generator, value class "patterns" (fill
 * puts every special value of the format first, then random codes), after
 * every other family. Judged as those ops are on the wide types: exact for
 * data movement, selection and the predicates, each body step correctly
 * rounded in the format for while/if/case/map/windows/scatter, the data
 * bound for dots. */
bool conf_lowp_ops_op(plumb_opcode op, plumb_dtype t)
{
    if (!plumb_dtype_is_lowp(t) || !ir_lowp_accepts(op, t) || (plumb_op_get(op)->types & PLUMB_TY_BIT(t)))
        return false;
    switch (op) {
    case PLUMB_OP_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_UPDATE_SLICE: case PLUMB_OP_GATHER: case PLUMB_OP_SCATTER:
    case PLUMB_OP_SORT: case PLUMB_OP_TOP_K: case PLUMB_OP_OPTIMIZATION_BARRIER: case PLUMB_OP_WHILE:
    case PLUMB_OP_IF: case PLUMB_OP_CASE: case PLUMB_OP_MAP: case PLUMB_OP_REDUCE_WINDOW:
    case PLUMB_OP_SELECT_AND_SCATTER: case PLUMB_OP_SELECT: case PLUMB_OP_CLAMP: case PLUMB_OP_COMPARE:
    case PLUMB_OP_IS_FINITE: case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF:
    case PLUMB_OP_DOT: case PLUMB_OP_DOT_GENERAL:
        return true;
    case PLUMB_OP_BATCH_NORM_INFERENCE: case PLUMB_OP_BATCH_NORM_TRAINING: case PLUMB_OP_BATCH_NORM_GRAD:
        /* f8E8M0FNU has no zero and no negative value: x - mean is NaN */
        return t != PLUMB_F8E8M0FNU;
    /* the shape operands' ops: gen_dynamic's programs, exact */
    case PLUMB_OP_GET_DIMENSION_SIZE: case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_REAL_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_PAD: case PLUMB_OP_DYNAMIC_GATHER:
    case PLUMB_OP_RNG_BIT_GENERATOR:   /* an i2/i4/ui2/ui4 output, bit-exact */
        return true;
    default:
        return false;
    }
}

static bool one_case(gen *g, plumb_dtype t, const char *sc, const char *vc, uint32_t rep, plumb_dtype target);

static bool gen_lowp_ops(gen *g)
{
    uint32_t ns;
    const char *const *sh = conf_shape_classes(g->op, &ns);
    bool ok = true;
    for (int ti = 0; ok && ti < PLUMB_DTYPE_COUNT; ti++)
        for (uint32_t s = 0; ok && conf_lowp_ops_op(g->op, (plumb_dtype)ti) && s < ns; s++)
            ok = one_case(g, (plumb_dtype)ti, sh[s], "patterns", 0, (plumb_dtype)ti);
    return ok;
}

/* One case of the plan: seeds the generator from (seed, op, dtype, ordinal)
 * so that a case's bytes do not depend on sharding or on other cases. */
static bool one_case(gen *g, plumb_dtype t, const char *sc, const char *vc, uint32_t rep, plumb_dtype target)
{
    g->t = t;
    g->target = target;
    g->shape = sc;
    g->value = vc;
    g->rep = rep;
    gsl_rng_set(g->rng, (unsigned long)(mix64(g->seed ^ mix64(((uint64_t)g->op << 40) ^ ((uint64_t)t << 32) ^ g->ordinal)) & 0xFFFFFFFFu));
    bool keep = g->shard_count <= 1 || g->ordinal % g->shard_count == g->shard_index;
    if (!keep) { g->ordinal++; return true; }
    g->dyn_n = poly_size(sc);
    g->dyn = g->dyn_n >= 0;
    if (conf_op_dynamic(g->op)) return gen_dynamic(g);
    if (g->op == PLUMB_OP_OPTIMIZATION_BARRIER) return gen_barrier(g);
    if (g->op == PLUMB_OP_WHILE) return gen_while(g);
    if (g->op == PLUMB_OP_REDUCE_WINDOW || g->op == PLUMB_OP_SELECT_AND_SCATTER) return gen_window(g);
    if (g->op == PLUMB_OP_IF || g->op == PLUMB_OP_CASE) return gen_branches(g);
    if (g->op == PLUMB_OP_MAP) return gen_map(g);
    if (g->op == PLUMB_OP_COMPOSITE) return gen_composite(g);
    if (g->op == PLUMB_OP_TUPLE || g->op == PLUMB_OP_GET_TUPLE_ELEMENT) return gen_tuple(g);
    if (conf_op_batch_norm(g->op)) return gen_batch_norm(g);
    if (g->op == PLUMB_OP_TRIANGULAR_SOLVE || g->op == PLUMB_OP_CHOLESKY) return gen_linalg(g);
    if (g->op == PLUMB_OP_FFT) return gen_fft(g);
    switch (plumb_op_get(g->op)->kind) {
    case PLUMB_KIND_ELEMENTWISE: return gen_elementwise(g, target);
    case PLUMB_KIND_MOVEMENT: return gen_movement(g, target);
    case PLUMB_KIND_REDUCTION: return gen_reduce(g, PLUMB_OP_ADD);
    case PLUMB_KIND_CONTRACTION:
        if (g->op == PLUMB_OP_DYNAMIC_CONV) return gen_dynconv(g);
        return g->op == PLUMB_OP_CONVOLUTION ? gen_conv(g) : gen_dot(g);
    case PLUMB_KIND_INDEXING: return gen_indexing(g);
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
                if (g->suite == CONF_SUITE_FULL || s == 0 || v == 0) ok = one_case(g, t, sh[s], vs[v], 0, t);
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
                        ok = one_case(&g, t, sh[s], vs[v], r, targets[k]);
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
                gsl_rng_set(g.rng, (unsigned long)(mix64(seed ^ mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = gen_reduce(&g, bodies[k]);
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
                gsl_rng_set(g.rng, (unsigned long)(mix64(seed ^ mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = gen_window(&g);
                else g.ordinal++;
            }
        }
        if (ok && (t == PLUMB_F16 || t == PLUMB_BF16) && is_unary_float_ew(op, t)) {
            g.t = t; g.target = t; g.shape = "odd"; g.value = "exhaustive"; g.rep = 0;
            bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
            if (keep) ok = gen_exhaustive16(&g);
            else g.ordinal++;
        }
        if (ok && is_binary_float_ew(op, t)) {
            static const char *names[] = {"specials_x_specials", "specials_x_random", "stratified"};
            for (int w = 0; ok && w < 3; w++) {
                g.t = t; g.target = t; g.shape = "odd"; g.value = names[w]; g.rep = 0;
                gsl_rng_set(g.rng, (unsigned long)(mix64(seed ^ mix64(((uint64_t)op << 40) ^ ((uint64_t)t << 32) ^ g.ordinal)) & 0xFFFFFFFFu));
                bool keep = shard_count <= 1 || g.ordinal % shard_count == shard_index;
                if (keep) ok = gen_binary_sweep(&g, w);
                else g.ordinal++;
            }
        }
    }
    if (ok) ok = gen_depth(&g);
    if (ok) ok = gen_forms(&g);
    if (ok) ok = gen_opcross(&g);
    if (ok) ok = gen_poly(&g);
    if (ok) ok = gen_complex(&g);
    if (ok) ok = gen_lowp(&g);
    if (ok) ok = gen_complex_ops(&g);
    if (ok) ok = gen_dotalg(&g);
    if (ok) ok = gen_complex_sum(&g);
    if (ok) ok = gen_conv_types(&g);
    if (ok) ok = gen_linalg_types(&g);
    if (ok) ok = gen_lowp_ops(&g);
    if (ok) ok = gen_complex_more(&g);
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
