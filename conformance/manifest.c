/* The manifest: how many cases conf_generate must produce per op and suite,
 * computed from the op table row by arithmetic of its own (dtype count ×
 * shape classes × value classes, plus the sweeps), not by running the
 * generation loop, so that a generator regression that drops cases makes the
 * runner fail instead of passing vacuously. docs/conformance.md has the table. */
#include "conf.h"
#include "batchnorm_bound.h"
#include "linalg_bound.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "conv_types.h"

/* Shape classes per op (gen.c's lists, counted here independently). */
static uint32_t shape_count(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_GET_DIMENSION_SIZE: case PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM: case PLUMB_OP_DYNAMIC_RESHAPE:
    case PLUMB_OP_DYNAMIC_IOTA: case PLUMB_OP_REAL_DYNAMIC_SLICE: case PLUMB_OP_DYNAMIC_PAD:
    case PLUMB_OP_DYNAMIC_GATHER:
        return 4;                            /* dyn_odd dyn_0 dyn_1 dyn_bound */
    case PLUMB_OP_CONSTANT: return 4;        /* odd scalar empty one */
    case PLUMB_OP_BITCAST_CONVERT: return 4; /* odd scalar empty wide */
    case PLUMB_OP_SORT: return 5;            /* odd one empty wide dimnums */
    case PLUMB_OP_TOP_K: return 3;           /* odd one wide */
    case PLUMB_OP_OPTIMIZATION_BARRIER: return 4;  /* odd scalar empty wide */
    case PLUMB_OP_WHILE: return 4;                 /* trip0 trip1 trip5 nested */
    case PLUMB_OP_IF: return 3;                    /* taken_true taken_false nested */
    case PLUMB_OP_CASE: return 4;                  /* branch0 branch1 branch2 out_of_range */
    case PLUMB_OP_MAP: return 5;                   /* odd scalar empty wide captured */
    case PLUMB_OP_SCAN: return 5;                  /* dim0 dim1 reverse empty multi */
    case PLUMB_OP_COMPOSITE: return 4;             /* odd scalar empty wide */
    case PLUMB_OP_TUPLE: case PLUMB_OP_GET_TUPLE_ELEMENT: return 4;   /* odd scalar empty wide */
    case PLUMB_OP_REDUCE_WINDOW: return 5;         /* pool2 pool3 dilated r1 r3 */
    case PLUMB_OP_SELECT_AND_SCATTER: return 4;    /* pool2 pool3 r1 r2 */
    case PLUMB_OP_TRIANGULAR_SOLVE: return 6;  /* left_lower left_upper_trans_unit right_lower_adjoint right_upper_unit batch empty */
    case PLUMB_OP_CHOLESKY: return 5;          /* lower upper batch one empty */
    case PLUMB_OP_BATCH_NORM_INFERENCE: case PLUMB_OP_BATCH_NORM_TRAINING: case PLUMB_OP_BATCH_NORM_GRAD:
        return 9;                              /* r2_f0 r2_f1 r3_f0 r3_f1 r3_f2 r4_f0 r4_f1 r4_f2 r4_f3 */
    case PLUMB_OP_FFT: return 10;              /* fft1 ifft1 rfft1 irfft1 fft2 ifft3 rfft2 irfft3 prime empty */
    case PLUMB_OP_CONVOLUTION: return 9;       /* odd empty one wide nchw groups batch_groups dilated layout */
    case PLUMB_OP_DYNAMIC_CONV: return 4;      /* same crop asym dilated */
    case PLUMB_OP_RAGGED_DOT: return 6;        /* noncontract contract batch batched prefix empty */
    default: break;
    }
    switch (plumb_op_get(op)->kind) {
    case PLUMB_KIND_ELEMENTWISE: return 6;   /* odd scalar empty one wide broadcast */
    case PLUMB_KIND_MOVEMENT: return 5;      /* odd empty one wide dimnums */
    case PLUMB_KIND_REDUCTION: return 5;
    case PLUMB_KIND_CONTRACTION: return 6;   /* odd scalar empty one wide dimnums */
    case PLUMB_KIND_INDEXING: return 4;      /* odd one empty dimnums */
    case PLUMB_KIND_RNG: return 3;           /* odd one wide */
    default: return 0;
    }
}

static uint32_t value_count(plumb_opcode op, plumb_dtype t)
{
    if (op == PLUMB_OP_IOTA || op == PLUMB_OP_DYNAMIC_IOTA || op == PLUMB_OP_GET_DIMENSION_SIZE)
        return 1;                                               /* none */
    if (plumb_op_get(op)->kind == PLUMB_KIND_RNG) return 2;     /* three_fry philox */
    if (op == PLUMB_OP_TRIANGULAR_SOLVE) return 2;              /* wellcond illcond */
    if (op == PLUMB_OP_CHOLESKY) return 3;                      /* spd illcond notpd */
    if (conf_op_batch_norm(op)) return 3;                       /* normal shifted constant */
    if (op == PLUMB_OP_FFT) return 3;                           /* normal wide tone */
    if (plumb_dtype_is_float(t)) return 6;  /* special subnormal boundary normal uniform loguniform */
    if (plumb_dtype_is_bool(t)) return 1;   /* uniform */
    return 2;                               /* boundary uniform */
}

static uint32_t target_count(plumb_opcode op, plumb_dtype t)
{
    if (op == PLUMB_OP_CONVERT) return PLUMB_DTYPE_COUNT;
    if (op != PLUMB_OP_BITCAST_CONVERT) return 1;
    uint32_t n = 0;
    for (int u = 0; u < PLUMB_DTYPE_COUNT; u++)
        n += plumb_dtype_get((plumb_dtype)u)->bits == plumb_dtype_get(t)->bits;
    return n;
}

/* The depth families (the same in both suites): one "cross" case per type
 * for elementwise ops of two or three operands, dots, reduce, pad and
 * scatter; one
 * "threshold" case for power, add, subtract, multiply and divide in every
 * float type and for the saturating,
 * overflowing, underflowing and rounding unary ops in f32 and f64 (CHLO's
 * cosh, sinh and erfc among them); one "binades" sweep
 * per f32/f64 unary float op; one "midpoint" case per convert pair whose
 * target has fewer significand bits or exponent bits than the source holds. */
static uint32_t depth_count(plumb_opcode op, plumb_dtype t)
{
    const plumb_op_info *oi = plumb_op_get(op);
    bool f = plumb_dtype_is_float(t), wide = t == PLUMB_F32 || t == PLUMB_F64;
    uint32_t n = 0;
    if (oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity >= 2) n++;
    bool linalg = op == PLUMB_OP_TRIANGULAR_SOLVE || op == PLUMB_OP_CHOLESKY;   /* no "cross" case */
    linalg |= op == PLUMB_OP_CONVOLUTION || op == PLUMB_OP_DYNAMIC_CONV;        /* nor for convolution */
    linalg |= op == PLUMB_OP_FFT;                                               /* nor for fft */
    linalg |= op == PLUMB_OP_RAGGED_DOT;                                        /* nor for ragged_dot */
    if ((oi->kind == PLUMB_KIND_CONTRACTION && !linalg) || op == PLUMB_OP_REDUCE || op == PLUMB_OP_PAD ||
        op == PLUMB_OP_SCATTER)
        n++;
    switch (op) {
    case PLUMB_OP_POWER: case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_MULTIPLY: case PLUMB_OP_DIVIDE:
        n += f;
        break;
    case PLUMB_OP_EXPONENTIAL: case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_TANH: case PLUMB_OP_LOGISTIC:
    case PLUMB_OP_ERF: case PLUMB_OP_FLOOR: case PLUMB_OP_CEIL: case PLUMB_OP_ROUND_NEAREST_EVEN:
    case PLUMB_OP_ROUND_NEAREST_AFZ: case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ERFC:
        n += wide;
        break;
    default: break;
    }
    if (wide && oi->kind == PLUMB_KIND_ELEMENTWISE && oi->arity == 1 && op != PLUMB_OP_CONVERT) n++;
    if (op == PLUMB_OP_CONVERT)
        for (int u = 0; u < PLUMB_DTYPE_COUNT; u++) {
            const plumb_dtype_info *d = plumb_dtype_get((plumb_dtype)u), *s = plumb_dtype_get(t);
            if (!plumb_dtype_is_float((plumb_dtype)u)) {
                n += f && !plumb_dtype_is_bool((plumb_dtype)u); /* "steps": float → integer truncation */
                continue;
            }
            if (f ? s->mant_bits > d->mant_bits || s->exp_bits > d->exp_bits
                  : !plumb_dtype_is_bool(t) && s->bits > d->mant_bits + 1)
                n++;
        }
    /* "patterns": a small source (FP8/FP6/FP4, i2/i4/ui2/ui4), every pattern into every type */
    if (op == PLUMB_OP_CONVERT && plumb_dtype_is_lowp(t)) n += PLUMB_DTYPE_COUNT;
    return n;
}

/* The "dyn_*" family: four sizes (0, 1, odd, the bound) per accepted type
 * of every elementwise op, reduce and contraction, and of the static data
 * movement and indexing ops whose operand can stay `?` (the same in both
 * suites). */
static uint32_t poly_count(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_BITCAST_CONVERT: case PLUMB_OP_TRANSPOSE: case PLUMB_OP_REVERSE:
    case PLUMB_OP_CONCATENATE: case PLUMB_OP_PAD: case PLUMB_OP_GATHER: case PLUMB_OP_SCATTER: case PLUMB_OP_SORT:
    case PLUMB_OP_TOP_K:
        return 4;
    default: break;
    }
    if (op == PLUMB_OP_CONVOLUTION) return 0;   /* static operands only */
    if (op == PLUMB_OP_DYNAMIC_CONV) return 0;  /* its padding is the dynamic part: its own classes */
    if (op == PLUMB_OP_RAGGED_DOT) return 0;    /* static shapes only */
    plumb_kind k = plumb_op_get(op)->kind;
    if (op == PLUMB_OP_REDUCE_WINDOW) return 0;   /* no "dyn_*" family */
    if (op == PLUMB_OP_TRIANGULAR_SOLVE || op == PLUMB_OP_CHOLESKY) return 0;
    if (conf_op_batch_norm(op)) return 0;
    if (op == PLUMB_OP_FFT) return 0;
    return k == PLUMB_KIND_ELEMENTWISE || k == PLUMB_KIND_REDUCTION || k == PLUMB_KIND_CONTRACTION ? 4 : 0;
}

uint32_t conf_manifest_count(plumb_opcode op, conf_suite suite)
{
    if (op >= PLUMB_OP_COUNT) return 0;
    const plumb_op_info *oi = plumb_op_get(op);
    uint32_t ns = shape_count(op), total = 0;
    if (ns == 0) return 0;
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++) {
        plumb_dtype t = (plumb_dtype)ti;
        if (!(oi->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) continue;   /* complex: not generated yet */
        uint32_t nv = value_count(op, t), nt = target_count(op, t);
        /* quick: the primary shape × every value class, the other shapes × one */
        total += nt * (suite == CONF_SUITE_FULL ? ns * nv * 3 : nv + ns - 1);
        if (op == PLUMB_OP_REDUCE) total += 2;  /* maximum and multiply bodies */
        if (op == PLUMB_OP_REDUCE_WINDOW) total += 2;   /* padded max/min over one-signed values */
        bool ew = oi->kind == PLUMB_KIND_ELEMENTWISE && plumb_dtype_is_float(t);
        if (ew && oi->arity == 1 && op != PLUMB_OP_CONVERT && (t == PLUMB_F16 || t == PLUMB_BF16))
            total += 1;                         /* every 16-bit input */
        if (ew && oi->arity == 2) total += 3;   /* specials², specials × random, stratified */
        total += depth_count(op, t);
        total += conf_manifest_forms(op, t, NULL, 0);
        total += poly_count(op);
        /* operand-crossed dots: every pair in "odd", and dot_general's batched "dimnums" too */
        if ((op == PLUMB_OP_DOT || op == PLUMB_OP_DOT_GENERAL) && plumb_dtype_is_float(t))
            total += CONF_OPCROSS_PAIRS * (op == PLUMB_OP_DOT ? 1u : 2u);
    }
    /* the small types' family: one case per FP8/FP6/FP4 or sub-byte type the
     * op takes through ir_lowp_accepts (elementwise, one or two operands,
     * the pretty form `op %x[, %y] : T`, result of the operand's type) */
    if (oi->kind == PLUMB_KIND_ELEMENTWISE && (oi->arity == 1 || oi->arity == 2) && oi->syntax == PLUMB_SYN_EW &&
        op != PLUMB_OP_CONVERT && op != PLUMB_OP_IS_FINITE && op != PLUMB_OP_IS_INF && op != PLUMB_OP_IS_POS_INF &&
        op != PLUMB_OP_IS_NEG_INF)
        for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++)
            total += plumb_dtype_is_lowp((plumb_dtype)ti) && ir_lowp_accepts(op, (plumb_dtype)ti);
    /* ... and reduce's add reduction over every pattern of each small type
     * (reduce_precision: format e2m1 over every pattern) */
    if (op == PLUMB_OP_REDUCE || op == PLUMB_OP_REDUCE_PRECISION)
        for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++)
            total += conf_lowp_family_op(op, (plumb_dtype)ti);
    /* the small types through indexing, sort, control flow, windows,
     * select, clamp, compare, the predicates and dots: one case per shape
     * class of the op (gen.c's gen_lowp_ops) */
    for (int ti = 0; ti < PLUMB_DTYPE_COUNT; ti++)
        if (conf_lowp_ops_op(op, (plumb_dtype)ti)) total += ns;
    /* complex through the other data movement ops, map and reduce_window */
    total += conf_complex_more_cases(op);
    total += conf_cconvert_cases(op);   /* complex<f32> <-> complex<f64> convert */
    total += conf_sweeps_cases(op, suite);   /* every pattern where no family had it (gen_sweeps.c) */
    total += conf_sizes_cases(op);   /* sizes where backends change strategy (gen_sizes.c) */
    /* dot_general's algorithm family (docs/spec/dotalg.md): 15 algorithms
     * on f32 operands (f64 for f64/f64/f64), 2 on bf16 and 1 on f16 */
    if (op == PLUMB_OP_DOT_GENERAL) total += 15 + 2 + 1;
    /* the complex family: complex<f32> and complex<f64> × normal,
     * loguniform, small, special (and cancel for multiply), for the
     * elementwise ops docs/spec/complex.md lists */
    switch (op) {
    case PLUMB_OP_MULTIPLY:
        total += 2 * 5;
        break;
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_DIVIDE: case PLUMB_OP_POWER: case PLUMB_OP_NEGATE:
    case PLUMB_OP_ABS: case PLUMB_OP_SIGN: case PLUMB_OP_SQRT: case PLUMB_OP_RSQRT: case PLUMB_OP_EXPONENTIAL:
    case PLUMB_OP_EXPONENTIAL_MINUS_ONE: case PLUMB_OP_LOG: case PLUMB_OP_LOG_PLUS_ONE: case PLUMB_OP_SINE:
    case PLUMB_OP_COSINE: case PLUMB_OP_TAN: case PLUMB_OP_TANH: case PLUMB_OP_ASINH: case PLUMB_OP_ASIN:
    case PLUMB_OP_ACOS: case PLUMB_OP_ATAN: case PLUMB_OP_ATANH: case PLUMB_OP_SQUARE: case PLUMB_OP_REAL:
    case PLUMB_OP_COSH: case PLUMB_OP_SINH: case PLUMB_OP_ACOSH: case PLUMB_OP_CONJ: case PLUMB_OP_CHLO_TAN:
    case PLUMB_OP_IMAG:
    case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM: case PLUMB_OP_LOGISTIC: case PLUMB_OP_CBRT: case PLUMB_OP_CLAMP:
        total += 2 * 4;
        break;
    default:
        break;
    }
    /* the complex-ops family: compare (6 directions), sort (2 comparators)
     * and select, scatter, select_and_scatter, reverse, pad, concatenate,
     * transpose (1 each), on complex<f32> and complex<f64> */
    total += conf_complex_ops_cases(op);
    /* complex reduce-add over 1-3 dims and dot_general mv, mm, batched, x
     * normal, cancel, on complex<f32> and complex<f64> */
    total += conf_complex_sum_cases(op);
    /* convolution and dynamic_conv on complex and the small types
     * (conformance/gen_conv_types.c) */
    total += conf_conv_types_cases(op);
    /* triangular_solve and cholesky on complex and FP8/FP6/FP4 (gen_linalg.c) */
    total += conf_linalg_family_cases(op, suite == CONF_SUITE_FULL);
    return total;
}

/* ---- attribute forms ------------------------------------------------------------------
 * The forms promised per (op, type), enumerated here by brute force over
 * index tuples (gen.c walks permutations and maps its own way), so that a
 * form the generator stops emitting is an empty cell of the coverage. */

typedef struct form_list {
    char (*out)[CONF_FORM_NAME];
    uint32_t cap, n;
} form_list;

static void form_add(form_list *l, const char *fmt_prefix, const uint32_t *v, uint32_t k)
{
    if (l->out && l->n < l->cap) {
        char *s = l->out[l->n];
        size_t used = (size_t)snprintf(s, CONF_FORM_NAME, "%s", fmt_prefix);
        if (k == 0 && v && used < CONF_FORM_NAME) snprintf(s + used, CONF_FORM_NAME - used, "_none");
        for (uint32_t i = 0; v && i < k && used < CONF_FORM_NAME; i++)
            used += (size_t)snprintf(s + used, CONF_FORM_NAME - used, "_%u", v[i]);
    }
    l->n++;
}

/* Tuples of k entries from 0..n-1, all distinct, each once; ordered (perm =
 * true) or increasing (subsets). */
static void tuples(form_list *l, const char *prefix, uint32_t k, uint32_t n, bool ordered)
{
    uint32_t total = 1;
    for (uint32_t i = 0; i < k; i++) total *= n;
    for (uint32_t code = 0; code < total; code++) {
        uint32_t v[4], c = code, seen = 0;
        bool good = true;
        for (uint32_t i = 0; i < k; i++) {
            v[k - 1 - i] = c % n;
            c /= n;
        }
        for (uint32_t i = 0; i < k; i++) {
            if (seen & (1u << v[i]) || (!ordered && i && v[i] < v[i - 1])) good = false;
            seen |= 1u << v[i];
        }
        if (good) form_add(l, prefix, v, k);
    }
}

uint32_t conf_manifest_forms(plumb_opcode op, plumb_dtype t, char (*out)[CONF_FORM_NAME], uint32_t cap)
{
    form_list l = {out, cap, 0};
    if (op >= PLUMB_OP_COUNT || !(plumb_op_get(op)->types & PLUMB_TY_BIT(t)) || plumb_dtype_is_complex(t)) return 0;
    bool f = plumb_dtype_is_float(t);
    static const char *const dirs[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    switch (op) {
    case PLUMB_OP_TRANSPOSE:
        if (t == PLUMB_F32)
            for (uint32_t r = 1; r <= 4; r++) tuples(&l, "perm", r, r, true);
        break;
    case PLUMB_OP_REVERSE:
        if (t == PLUMB_F32)
            for (uint32_t r = 1; r <= 4; r++) {
                char pre[16];
                snprintf(pre, sizeof pre, "r%u_dims", r);
                for (uint32_t k = 0; k <= r; k++) tuples(&l, pre, k, r, false);
            }
        break;
    case PLUMB_OP_BROADCAST_IN_DIM:
        if (t == PLUMB_F32)
            for (uint32_t k = 0; k <= 4; k++) tuples(&l, "map", k, 4, true);
        break;
    case PLUMB_OP_CONCATENATE:
        if (t == PLUMB_F32)
            for (uint32_t n = 1; n <= 4; n++)
                for (uint32_t d = 0; d < 3; d++) {
                    char nm[32];   /* room for two full uint32_t values */
                    snprintf(nm, sizeof nm, "n%u_dim%u", n, d);
                    form_add(&l, nm, NULL, 0);
                }
        break;
    case PLUMB_OP_IOTA:
        if (t == PLUMB_F32 || t == PLUMB_I32)
            for (uint32_t r = 1; r <= 4; r++)
                for (uint32_t d = 0; d < r; d++) {
                    char nm[32];   /* room for two full uint32_t values */
                    snprintf(nm, sizeof nm, "r%u_dim%u", r, d);
                    form_add(&l, nm, NULL, 0);
                }
        break;
    case PLUMB_OP_PAD:
        if (t == PLUMB_F32) {
            static const char *const p[] = {"neg_low", "neg_high", "interior", "neg_interior", "neg_to_empty", "interior_one_side"};
            for (uint32_t i = 0; i < 6; i++) form_add(&l, p[i], NULL, 0);
        }
        break;
    case PLUMB_OP_REDUCE: {
        if (t == PLUMB_F32)
            for (uint32_t r = 1; r <= 4; r++) {
                char pre[16];
                snprintf(pre, sizeof pre, "r%u_dims", r);
                for (uint32_t k = 1; k <= r; k++) tuples(&l, pre, k, r, false);
            }
        static const char *const b[] = {"body_add", "body_multiply", "body_maximum", "body_minimum", "body_and", "body_or"};
        if (f || t == PLUMB_I32 || t == PLUMB_UI32)
            for (uint32_t i = 0; i < (f ? 4u : 6u); i++) form_add(&l, b[i], NULL, 0);
        if (t == PLUMB_F32) {
            form_add(&l, "body_maximum_init", NULL, 0);
            form_add(&l, "body_minimum_init", NULL, 0);
            form_add(&l, "argmax", NULL, 0);
        }
        break;
    }
    case PLUMB_OP_SORT:
        if (t == PLUMB_F32) {
            static const char *const s[] = {"stable_lt_float_dim0", "stable_lt_float_dim1", "stable_lt_float_dim2",
                                            "stable_gt_float", "stable_lt_totalorder", "unstable_lt_totalorder"};
            for (uint32_t i = 0; i < 6; i++) form_add(&l, s[i], NULL, 0);
        }
        if (t == PLUMB_I32) form_add(&l, "stable_lt_signed", NULL, 0);
        if (t == PLUMB_UI32) form_add(&l, "stable_lt_unsigned", NULL, 0);
        break;
    case PLUMB_OP_CLAMP:
        form_add(&l, "scalar_lo", NULL, 0);
        form_add(&l, "scalar_hi", NULL, 0);
        form_add(&l, "scalar_both", NULL, 0);
        break;
    case PLUMB_OP_COMPARE: {
        /* StableHLO C3: FLOAT and TOTALORDER for floats, SIGNED for signed
         * integers, UNSIGNED for unsigned integers and i1 */
        const char *ct[2] = {f ? "float" : plumb_dtype_is_signed(t) ? "signed" : "unsigned", "totalorder"};
        for (uint32_t c = 0; c < (f ? 2u : 1u); c++)
            for (uint32_t d = 0; d < 6; d++) {
                char nm[CONF_FORM_NAME];
                snprintf(nm, sizeof nm, "%s_%s", dirs[d], ct[c]);
                form_add(&l, nm, NULL, 0);
            }
        break;
    }
    default: break;
    }
    return l.n;
}
