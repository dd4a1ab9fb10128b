/* The agreement checker: compares a backend's outputs for one case with the
 * reference under the op's agreement class (DESIGN.md, "Numerics contract";
 * docs/conformance.md states every bound and threshold used here). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/checkcmp.h"
#include "plumb/dotalg.h"
#include "plumb/fp8.h"
#include "conf.h"
#include "plumb/ref.h"
#include "fft_bound.h"
#include "linalg_bound.h"
#include "batchnorm_bound.h"

/* ---- float helpers ---------------------------------------------------------- */

static uint64_t sign_mask(plumb_dtype t) { return 1ull << (plumb_dtype_get(t)->bits - 1); }
static uint64_t exp_mask(plumb_dtype t)
{
    const plumb_dtype_info *di = plumb_dtype_get(t);
    return ((1ull << di->exp_bits) - 1) << di->mant_bits;
}
static uint64_t frac_mask(plumb_dtype t) { return (1ull << plumb_dtype_get(t)->mant_bits) - 1; }

/* The small float formats spend their codes their own way (ir/fp8.c): in
 * f8E4M3FN the all-ones exponent holds finite values up to 448 and only
 * S.1111.111 is NaN, the FNUZ formats' -0 code is their NaN, f8E8M0FNU has
 * no zero, no subnormal and no sign. Classifying them the IEEE way would
 * let two different finite results pass as "both NaN". */
static bool bits_is_nan(plumb_dtype t, uint64_t b)
{
    if (plumb_fpfmt_get(t)) return plumb_small_is_nan(plumb_fpfmt_get(t), (uint32_t)b);
    return (b & exp_mask(t)) == exp_mask(t) && (b & frac_mask(t));
}
static bool bits_is_inf(plumb_dtype t, uint64_t b)
{
    if (plumb_fpfmt_get(t)) return plumb_small_is_inf(plumb_fpfmt_get(t), (uint32_t)b);
    return (b & exp_mask(t)) == exp_mask(t) && !(b & frac_mask(t));
}
static bool bits_is_zero(plumb_dtype t, uint64_t b)
{
    if (t == PLUMB_F8E8M0FNU || (plumb_fpfmt_get(t) && bits_is_nan(t, b))) return false;
    return (b & ~sign_mask(t)) == 0;
}
static bool bits_is_subnormal(plumb_dtype t, uint64_t b)
{
    if (t == PLUMB_F8E8M0FNU) return false;
    return (b & exp_mask(t)) == 0 && (b & frac_mask(t));
}

static bool bits_is_special(plumb_dtype t, uint64_t b)
{
    return bits_is_nan(t, b) || bits_is_inf(t, b) || bits_is_zero(t, b) || bits_is_subnormal(t, b);
}

double conf_unit_roundoff(plumb_dtype t)
{
    if (!plumb_dtype_is_float(t)) return 0.0;
    return ldexp(1.0, -(int)plumb_dtype_get(t)->mant_bits - 1);
}

static double min_normal(plumb_dtype t)
{
    int emax = (1 << (plumb_dtype_get(t)->exp_bits - 1)) - 1;
    return ldexp(1.0, 1 - emax);
}

static int emax_of(plumb_dtype t) { return (1 << (plumb_dtype_get(t)->exp_bits - 1)) - 1; }

double conf_max_finite(plumb_dtype t)
{
    if (!plumb_dtype_is_float(t)) return 0.0;
    return ldexp(2.0 - ldexp(1.0, -(int)plumb_dtype_get(t)->mant_bits), emax_of(t));
}

/* Half the spacing of floats at the largest exponent: a value rounds to
 * infinity exactly when its magnitude is at least max_finite + this
 * (round to nearest, ties to even: max_finite's last bit is 1). */
static double overflow_half_ulp(plumb_dtype t)
{
    return ldexp(1.0, emax_of(t) - (int)plumb_dtype_get(t)->mant_bits - 1);
}

double conf_underflow_eta(plumb_dtype t)
{
    if (!plumb_dtype_is_float(t)) return 0.0;
    /* smallest subnormal 2^(1 - emax - mant_bits); round to nearest errs by
     * at most half of it. f64's half (2^-1075) is below every double, so
     * f64 takes the whole spacing 2^-1074, twice the need. */
    int e = -emax_of(t) - (int)plumb_dtype_get(t)->mant_bits;
    return ldexp(1.0, e < -1074 ? -1074 : e);
}

double conf_gamma(uint64_t k, double u)
{
    double ku = (double)k * u;
    return ku >= 1.0 ? INFINITY : ku / (1.0 - ku);
}

static void describe(char *out, size_t cap, plumb_dtype t, uint64_t bits)
{
    uint8_t buf[8] = {0};
    plumb_store_bits(t, buf, 0, bits);
    if (plumb_dtype_is_float(t)) {
        snprintf(out, cap, "0x%0*llx (%.9g)", (int)(plumb_dtype_get(t)->bits / 4), (unsigned long long)bits,
                 plumb_load_f64(t, buf, 0));
    } else if (plumb_dtype_is_signed(t)) {
        int64_t v = plumb_load_i64(t, buf, 0);
        snprintf(out, cap, "%lld", (long long)v);
    } else {
        snprintf(out, cap, "%llu", (unsigned long long)bits);
    }
}

/* ---- the case's op ------------------------------------------------------------ */

typedef struct find_ctx {
    plumb_opcode code;
    ir_op *found;
} find_ctx;

static bool find_code_fn(ir_op *op, void *ud)
{
    find_ctx *f = ud;
    if (!f->found && op->code == f->code && op->parent && op->parent->parent == NULL) f->found = op;
    return true;
}

/* The op the case tests, in @main's body (not inside a region). */
static ir_op *case_op(const ir_module *m, plumb_opcode code)
{
    find_ctx f = {code, NULL};
    ir_walk(m, find_code_fn, &f);
    return f.found;
}

/* The opcode that a reduce/scatter body applies, or PLUMB_OP_COUNT when the
 * body is anything but one binary op and a return. */
static plumb_opcode body_op(const ir_op *op)
{
    if (op->n_regions != 1) return PLUMB_OP_COUNT;
    const ir_block *b = &op->regions[0];
    if (b->n_ops != 2 || !b->first) return PLUMB_OP_COUNT;
    return b->first->code;
}

/* A dimension's length for an error bound: its size, a `?` dim's declared
 * bound (an upper bound of the length: γ(k) grows with k, so the bound stays
 * valid), or 0 for an unbounded `?` (judged exactly: strict, never lenient). */
static uint64_t dim_len(const ir_type *t, uint32_t i)
{
    if (t->dims[i] >= 0) return (uint64_t)t->dims[i];
    return t->bounds[i] >= 0 ? (uint64_t)t->bounds[i] : 0;
}

static uint64_t type_numel(const ir_type *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) n *= dim_len(t, i);
    return n;
}

/* How a DATA-class result depends on its float inputs, for splitting its
 * terms by sign (docs/conformance.md, "Overflow of partial sums"): a sum of
 * the inputs (reduce-add, scatter-add: linear in every float input), a sum
 * of products of the two float inputs (dots: bilinear), or neither
 * (products: multiply bodies). */
typedef enum terms_kind { TERMS_NONE, TERMS_LINEAR, TERMS_BILINEAR } terms_kind;

/* How the case's results are judged, and for DATA the number of rounded
 * operations k in γ(k) and the number of products k_mul per element, each
 * of which may underflow (docs/conformance.md). */
typedef struct judge {
    plumb_agree agree;
    bool moves_data;     /* NaN payloads matter */
    uint64_t k;          /* DATA: γ(k) */
    uint64_t k_mul;      /* DATA: products per element (the underflow term) */
    terms_kind terms;    /* DATA: how the terms split by sign */
    /* DATA, a dot_general with an algorithm (docs/spec/dotalg.md): the
     * accumulator is the algorithm's accumulation type with unit roundoff
     * alg_ua (2^-14 where imprecise accumulation is allowed), and a split
     * algorithm's products each err by up to alg_eps relatively */
    bool alg;
    plumb_dtype alg_acc;
    double alg_ua, alg_eps;
} judge;

static judge judge_case(const conf_case *c, const ir_module *m)
{
    const plumb_op_info *oi = plumb_op_get(c->op);
    judge j = {oi->agree, oi->kind == PLUMB_KIND_MOVEMENT, 0, 0, TERMS_NONE, false, PLUMB_F32, 0, 0};
    if (c->op == PLUMB_OP_GATHER || c->op == PLUMB_OP_SORT || c->op == PLUMB_OP_TOP_K ||
        c->op == PLUMB_OP_SELECT || c->op == PLUMB_OP_RNG_BIT_GENERATOR)   /* rng: raw bits, NaN patterns included */
        j.moves_data = true;
    if (j.agree != PLUMB_AGREE_DATA) return j;
    /* reduce, reduce_window and select_and_scatter folds on the FP8/FP6/FP4
     * formats: the reference and the runtime round the exact fold of a
     * recognised body once (docs/spec/types.md, "Reductions"), so the
     * result is the correctly rounded one, compared bitwise; the data bound
     * of the wide types is void there (u up to 2^-2 makes γ(k) infinite
     * from k = 4). */
    if ((c->op == PLUMB_OP_REDUCE || c->op == PLUMB_OP_REDUCE_WINDOW || c->op == PLUMB_OP_SELECT_AND_SCATTER) &&
        c->dtype < PLUMB_DTYPE_COUNT && plumb_dtype_is_small_float(c->dtype)) {
        j.agree = PLUMB_AGREE_EXACT;
        return j;
    }
    ir_op *op = case_op(m, c->op);
    if (!op) return j;
    switch (c->op) {
    case PLUMB_OP_REDUCE: {
        plumb_opcode b = body_op(op);
        if (b != PLUMB_OP_ADD && b != PLUMB_OP_MULTIPLY) { j.agree = PLUMB_AGREE_EXACT; return j; }
        const ir_type *in = &op->operands[0]->type;
        uint64_t len = 1;
        for (uint32_t i = 0; i < op->a.dims.n; i++) {
            len *= dim_len(in, (uint32_t)op->a.dims.v[i]);
        }
        j.k = len; /* len terms plus the init value: len roundings */
        /* Sums of floats round only relative to the result: a subnormal sum
         * is exact, so additions add no underflow term (Higham §2.1). A
         * product's underflow error is amplified by every later factor,
         * which no data-independent term covers: multiply bodies have none
         * (docs/conformance.md). */
        if (b == PLUMB_OP_ADD) j.terms = TERMS_LINEAR;
        return j;
    }
    case PLUMB_OP_REDUCE_WINDOW: {
        /* docs/spec/window.md: a window of k positions folds k terms into
         * the init value (padding and dilation holes fold the init) */
        plumb_opcode b = body_op(op);
        if (b != PLUMB_OP_ADD && b != PLUMB_OP_MULTIPLY) { j.agree = PLUMB_AGREE_EXACT; return j; }
        uint64_t len = 1;
        for (uint32_t i = 0; i < op->a.window_dims.n; i++) len *= (uint64_t)op->a.window_dims.v[i];
        j.k = len;
        if (b == PLUMB_OP_ADD) j.terms = TERMS_LINEAR;
        return j;
    }
    case PLUMB_OP_SELECT_AND_SCATTER: {
        /* the scatter region (the second) folds every source element whose
         * window selected the same operand element: at most all of them */
        const ir_block *sb = op->n_regions == 2 ? &op->regions[1] : NULL;
        plumb_opcode b = sb && sb->n_ops == 2 && sb->first ? sb->first->code : PLUMB_OP_COUNT;
        if (b != PLUMB_OP_ADD && b != PLUMB_OP_MULTIPLY) { j.agree = PLUMB_AGREE_EXACT; return j; }
        j.k = type_numel(&op->operands[1]->type);
        if (b == PLUMB_OP_ADD) j.terms = TERMS_LINEAR;
        return j;
    }
    case PLUMB_OP_SCATTER: {
        plumb_opcode b = body_op(op);
        if (b != PLUMB_OP_ADD && b != PLUMB_OP_MULTIPLY) { j.agree = PLUMB_AGREE_EXACT; return j; }
        /* Every update may land on the same element: the bound holds for any index pattern. */
        j.k = type_numel(&op->operands[op->n_operands - 1]->type);
        if (b == PLUMB_OP_ADD) j.terms = TERMS_LINEAR;
        return j;
    }
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV: {
        /* a dot per result element over the kernel's elements of one output
         * feature: input features per group x window elements (padding
         * zeros included, as the spec multiplies them in) */
        const ir_type *r = &op->operands[1]->type;
        uint64_t len = 1;
        for (uint32_t i = 0; i < r->rank; i++)
            if (!op->a.conv || (int64_t)i != op->a.conv->k_out_feature) len *= dim_len(r, i);
        j.k = len;
        j.k_mul = len;
        j.terms = TERMS_BILINEAR;
        return j;
    }
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_RAGGED_DOT:   /* a group's terms are some of dot_general's: its bound */
    case PLUMB_OP_DOT: {
        const ir_type *l = &op->operands[0]->type;
        uint64_t len = 1;
        if (c->op == PLUMB_OP_DOT) {
            if (l->rank > 0) len = dim_len(l, l->rank - 1);
        } else {
            for (uint32_t i = 0; i < op->a.lhs_contract.n; i++) len *= dim_len(l, (uint32_t)op->a.lhs_contract.v[i]);
        }
        /* Higham's dot product bound: len products and len-1 additions, γ(len);
         * each product may underflow once. */
        j.k = len;
        j.k_mul = len;
        j.terms = TERMS_BILINEAR;
        if (ir_dotalg_applies(op)) {
            /* N primitive dots add N·len products (docs/spec/dotalg.md) */
            const ir_dot_algorithm *g = &op->a.algorithm;
            uint64_t np = g->num_primitive_operations > 0 ? (uint64_t)g->num_primitive_operations : 1;
            j.k = j.k_mul = len * np;
            j.alg = true;
            /* tf32 is no element type: its range is f32's */
            j.alg_acc = g->accumulation_type == IR_DOTALG_TF32 ? PLUMB_F32 : (plumb_dtype)g->accumulation_type;
            /* "the accumulation precision of FP8 GEMM on NVIDIA H800 GPUs
             * is limited to retaining around 14 bits" (DeepSeek-V3
             * Technical Report, arXiv:2412.19437, section 3.3.2) */
            j.alg_ua = g->allow_imprecise_accumulation ? ldexp(1.0, -14) : ir_dotalg_unit_roundoff(g->accumulation_type);
            j.alg_eps = ir_dotalg_split_eps(g);
        }
        return j;
    }
    default:
        return j;
    }
}

/* True when some value of m has a `?` dimension. */
static bool walk_dynamic(ir_op *op, void *ud)
{
    bool *dyn = ud;
    for (uint32_t i = 0; i < op->n_operands && !*dyn; i++) *dyn = !ir_type_is_static(&op->operands[i]->type);
    for (uint32_t i = 0; i < op->n_results && !*dyn; i++) *dyn = !ir_type_is_static(&op->results[i]->type);
    return !*dyn;
}

/* The judge of a case whose program has `?` dimensions: the error bound of
 * a reduction or dot depends on its actual length, which only the inputs
 * fix. The program is refined to the inputs' shapes and values (every `?`
 * concrete, as the reference ran it) and judged on that; the declared `?`
 * (-1) would give a length of 0 for reductions, an overflowed one for dots.
 * When refinement is impossible the bound uses each `?` dim's declared
 * bound (looser, still valid: γ(k) grows with k), and an unbounded `?` is
 * judged exactly. */
static judge judge_case_inputs(const conf_case *c, const ir_module *m)
{
    bool dyn = false;
    ir_walk(m, walk_dynamic, &dyn);
    if (!dyn) return judge_case(c, m);
    ir_type *types = calloc(c->n_inputs ? c->n_inputs : 1, sizeof *types);
    ir_module *mr = NULL;
    if (types) {
        for (uint32_t i = 0; i < c->n_inputs; i++)
            types[i] = ir_type_make(c->inputs[i]->dtype, c->inputs[i]->rank, c->inputs[i]->dims);
        plumb_diag rd;
        plumb_diag_clear(&rd);
        mr = plumb_ref_refine_values(m, NULL, types, c->inputs, c->n_inputs, 0, &rd);
        free(types);
    }
    if (mr) {
        judge j = judge_case(c, mr);
        ir_module_free(mr);
        return j;
    }
    return judge_case(c, m);
}

/* ---- running the reference ------------------------------------------------------ */

static bool run_ref(const ir_module *m, plumb_tensor *const *in, uint32_t n, plumb_ref_result *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    plumb_ref_options ro;
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    return plumb_ref_run(m, NULL, in, n, &ro, res, d);
}

typedef enum in_map { MAP_ABS, MAP_FTZ, MAP_POS, MAP_NEG } in_map;

/* The finite positive part x > 0 ? x : +0 (MAP_POS) or negative part
 * x < 0 ? −x : +0 (MAP_NEG) of a float element; infinities and NaNs map to
 * +0 in both (they are judged from the reference's result instead). */
static uint64_t sign_part(plumb_dtype t, uint64_t b, in_map how)
{
    if (bits_is_nan(t, b) || bits_is_inf(t, b) || bits_is_zero(t, b)) return 0;
    bool neg = (b & sign_mask(t)) != 0;
    if (how == MAP_POS) return neg ? 0 : b;
    return neg ? b & ~sign_mask(t) : 0;
}

/* Copies of the inputs with every float element replaced by |x| (the |x|
 * program's inputs), with subnormals flushed to signed zero, or by its
 * finite positive or negative part. how2 applies to the second float input
 * (the rhs of a dot); pass how for all. */
static plumb_tensor **map_inputs2(const conf_case *c, in_map how, in_map how2, bool *changed, plumb_diag *d)
{
    plumb_tensor **v = plumb_calloc(c->n_inputs ? c->n_inputs : 1, sizeof *v);
    if (!v) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory"); return NULL; }
    *changed = false;
    uint32_t nfloat = 0;
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        v[i] = plumb_tensor_clone(c->inputs[i], d);
        if (!v[i]) {
            for (uint32_t j = 0; j < i; j++) plumb_tensor_free(v[j]);
            plumb_free(v, sizeof *v * (c->n_inputs ? c->n_inputs : 1));
            return NULL;
        }
        plumb_dtype t = v[i]->dtype;
        if (!plumb_dtype_is_float(t)) continue;
        in_map hw = nfloat++ == 1 ? how2 : how;
        uint64_t ne = plumb_tensor_numel(v[i]);
        for (uint64_t e = 0; e < ne; e++) {
            uint64_t b = plumb_load_bits(t, v[i]->data, e);
            uint64_t nb = b;
            if (hw == MAP_ABS) nb = b & ~sign_mask(t);
            else if (hw == MAP_FTZ) { if (bits_is_subnormal(t, b)) nb = b & sign_mask(t); }
            else nb = sign_part(t, b, hw);
            if (nb != b) { plumb_store_bits(t, v[i]->data, e, nb); *changed = true; }
        }
    }
    return v;
}

static plumb_tensor **map_inputs(const conf_case *c, in_map how, bool *changed, plumb_diag *d)
{
    return map_inputs2(c, how, how, changed, d);
}

static void free_inputs(plumb_tensor **v, uint32_t n)
{
    if (!v) return;
    for (uint32_t i = 0; i < n; i++) plumb_tensor_free(v[i]);
    plumb_free(v, sizeof *v * (n ? n : 1));
}

/* ---- per-element comparison -------------------------------------------------------- */

typedef struct worst {
    double budget;
    uint32_t out;
    uint64_t idx;
    char reason[512];
} worst;

static void note(worst *w, double budget, uint32_t out, uint64_t idx, plumb_dtype t, uint64_t got, uint64_t want,
                 const char *what)
{
    if (budget <= w->budget && w->reason[0]) return;
    if (budget <= w->budget && budget <= 1.0) return;
    w->budget = budget;
    w->out = out;
    w->idx = idx;
    char g[64], e[64];
    describe(g, sizeof g, t, got);
    describe(e, sizeof e, t, want);
    snprintf(w->reason, sizeof w->reason, "output %u element %llu: got %s, want %s; %s", out,
             (unsigned long long)idx, g, e, what);
}

/* Exact comparison of one element; alt (FTZ alternative) may be NULL. */
static bool exact_equal(plumb_dtype t, uint64_t got, uint64_t want, bool payload)
{
    if (got == want) return true;
    if (plumb_dtype_is_float(t) && bits_is_nan(t, got) && bits_is_nan(t, want)) return !payload;
    return false;
}

/* Under a declared flush-to-zero, a subnormal result may come back as the
 * zero of the same sign. */
static bool ftz_equal(plumb_dtype t, uint64_t got, uint64_t want)
{
    return bits_is_subnormal(t, want) && bits_is_zero(t, got) && (got & sign_mask(t)) == (want & sign_mask(t));
}

static void check_exact(const plumb_tensor *g, const plumb_tensor *w, const plumb_tensor *wf, uint32_t k,
                        const judge *j, const conf_check_opts *o, worst *ws)
{
    plumb_dtype t = w->dtype;
    bool payload = j->moves_data && o->preserves_nan_payload;
    uint64_t ne = plumb_tensor_numel(w);
    for (uint64_t i = 0; i < ne; i++) {
        uint64_t gb = plumb_load_bits(t, g->data, i), wb = plumb_load_bits(t, w->data, i);
        if (exact_equal(t, gb, wb, payload)) continue;
        if (o->flushes_subnormals && plumb_dtype_is_float(t)) {
            if (ftz_equal(t, gb, wb)) continue;
            if (wf) {
                uint64_t fb = plumb_load_bits(t, wf->data, i);
                if (exact_equal(t, gb, fb, payload) || ftz_equal(t, gb, fb)) continue;
            }
        }
        char what[160];
        if (plumb_dtype_is_float(t) && ftz_equal(t, gb, wb))
            snprintf(what, sizeof what, "subnormal result flushed to zero, but the backend does not declare flush-to-zero");
        else if (plumb_dtype_is_float(t) && !bits_is_nan(t, gb) && !bits_is_nan(t, wb))
            snprintf(what, sizeof what, "error %llu ulp, bound 0 ulp (exact class)",
                     (unsigned long long)plumb_ulp_distance(t, gb, wb));
        else if (plumb_dtype_is_float(t) && bits_is_nan(t, gb) && bits_is_nan(t, wb))
            snprintf(what, sizeof what, "NaN payload differs; the op only moves data (exact class)");
        else
            snprintf(what, sizeof what, "bound 0 (exact class)");
        note(ws, CONF_BUDGET_MISMATCH, k, i, t, gb, wb, what);
    }
}

static void check_ulp(plumb_opcode op, const plumb_tensor *g, const plumb_tensor *w, const plumb_tensor *wf,
                      uint32_t k, const conf_check_opts *o, worst *ws)
{
    plumb_dtype t = w->dtype;
    if (!plumb_dtype_is_float(t)) {
        judge j = {PLUMB_AGREE_EXACT, false, 0, 0, TERMS_NONE, false, PLUMB_F32, 0, 0};
        check_exact(g, w, wf, k, &j, o, ws);
        return;
    }
    uint32_t bound = plumb_op_ulp_bound(op, t);
    uint64_t ne = plumb_tensor_numel(w);
    for (uint64_t i = 0; i < ne; i++) {
        uint64_t gb = plumb_load_bits(t, g->data, i), wb = plumb_load_bits(t, w->data, i);
        if (exact_equal(t, gb, wb, false)) continue;
        bool ftz_ok = false;
        if (o->flushes_subnormals) {
            if (ftz_equal(t, gb, wb)) continue;
            if (wf) {
                uint64_t fb = plumb_load_bits(t, wf->data, i);
                if (exact_equal(t, gb, fb, false) || ftz_equal(t, gb, fb)) continue;
                if (!bits_is_special(t, fb) && !bits_is_special(t, gb) &&
                    plumb_ulp_distance(t, gb, fb) <= bound)
                    ftz_ok = true;
            }
        }
        if (bits_is_special(t, gb) || bits_is_special(t, wb)) {
            if (ftz_ok) continue;
            note(ws, CONF_BUDGET_MISMATCH, k, i, t, gb, wb,
                 ftz_equal(t, gb, wb) ? "subnormal result flushed to zero, but the backend does not declare flush-to-zero"
                                      : "special value (NaN, infinity, zero or subnormal) must match exactly");
            continue;
        }
        uint64_t dist = plumb_ulp_distance(t, gb, wb);
        if (ftz_ok) continue;
        double budget = bound ? (double)dist / (double)bound : CONF_BUDGET_MISMATCH;
        char what[160];
        snprintf(what, sizeof what, "error %llu ulp, bound %u ulp", (unsigned long long)dist, bound);
        note(ws, budget, k, i, t, gb, wb, what);
    }
}

/* The sums of a DATA result's finite positive terms (P) and of the
 * magnitudes of its finite negative terms (N), each from the reference
 * (exact, rounded once to the output type): P = ref(x⁺), N = ref(x⁻) for
 * sums; P = ref(a⁺, b⁺) + ref(a⁻, b⁻), N = ref(a⁺, b⁻) + ref(a⁻, b⁺) for
 * dots (x⁺ = max(x, 0), x⁻ = max(−x, 0), infinities and NaNs dropped).
 * Only computed for cases with an infinite or NaN result. */
typedef struct sign_parts {
    uint32_t n;                 /* reference results held: 0, 2 (sums) or 4 (dots) */
    plumb_ref_result r[4];      /* sums: P, N; dots: ++, −−, +−, −+ */
} sign_parts;

static void parts_free(sign_parts *sp)
{
    for (uint32_t i = 0; i < sp->n; i++) plumb_ref_result_free(&sp->r[i]);
    sp->n = 0;
}

static bool run_parts(const ir_module *m, const conf_case *c, terms_kind tk, sign_parts *sp, plumb_diag *d)
{
    static const in_map lin[2][2] = {{MAP_POS, MAP_POS}, {MAP_NEG, MAP_NEG}};
    static const in_map bil[4][2] = {{MAP_POS, MAP_POS}, {MAP_NEG, MAP_NEG}, {MAP_POS, MAP_NEG}, {MAP_NEG, MAP_POS}};
    uint32_t runs = tk == TERMS_LINEAR ? 2 : 4;
    sp->n = 0;
    for (uint32_t i = 0; i < runs; i++) {
        const in_map *h = tk == TERMS_LINEAR ? lin[i] : bil[i];
        bool changed = false;
        plumb_tensor **in = map_inputs2(c, h[0], h[1], &changed, d);
        if (!in) goto out_fail;
        bool ok = run_ref(m, in, c->n_inputs, &sp->r[i], d);
        free_inputs(in, c->n_inputs);
        if (!ok) goto out_fail;
        sp->n = i + 1;
    }
    return true;
out_fail:
    parts_free(sp);
    return false;
}

/* P (neg false) or N (neg true) of output k's element i, as a double
 * (+inf when it overflowed the output type). */
static double part_sum(const sign_parts *sp, uint32_t k, uint64_t i, bool neg)
{
    plumb_dtype t = sp->r[0].outputs[k]->dtype;
    if (sp->n == 2) return plumb_load_f64(t, sp->r[neg ? 1 : 0].outputs[k]->data, i);
    uint32_t a = neg ? 2 : 0;
    return plumb_load_f64(t, sp->r[a].outputs[k]->data, i) + plumb_load_f64(t, sp->r[a + 1].outputs[k]->data, i);
}

static bool has_nonfinite(const plumb_tensor *x)
{
    if (!x || !plumb_dtype_is_float(x->dtype)) return false;
    uint64_t ne = plumb_tensor_numel(x);
    for (uint64_t e = 0; e < ne; e++)
        if ((plumb_load_bits(x->dtype, x->data, e) & exp_mask(x->dtype)) == exp_mask(x->dtype)) return true;
    return false;
}

/* What one element of a DATA result is judged with. */
typedef struct data_bound {
    plumb_dtype t, acc, in;     /* output, declared accumulator, input type */
    const judge *j;
    double gam, uo, out_terms;
    double fixed;               /* the absolute terms: c·η_out + k_mul·η_acc·(1+γ) + flush slack */
} data_bound;

/* The per-element bound at a result of magnitude v with Σ|terms| = a1 + a2
 * (two parts, P and N, so that an f64 Σ|x| beyond the largest double still
 * gives a finite γ(k)·Σ|x|). */
static double bound_at(const data_bound *b, double a1, double a2, double v)
{
    /* A small float format summed in itself (its declared accumulator,
     * ABI 1.4): γ(k) is infinite once k·u >= 1 and the bound void, which
     * the certificate states; not the NaN that ∞·0 would give (a NaN
     * bound fails every inexact element). */
    if (isinf(b->gam) && b->in < PLUMB_DTYPE_COUNT && plumb_dtype_is_small_float(b->in)) return INFINITY;
    return b->gam * a1 + b->gam * a2 + b->out_terms * b->uo * fabs(v) + b->fixed;
}

/* Whether a sum of terms of one sign whose exact total is x (rounded to
 * the output type; +inf when it overflowed it) can reach max_finite(limit)
 * in some order of accumulation: every computed partial sum of those terms
 * is at most x·(1 + u_out)²·(1 + γ(k)) (the first factor undoes the
 * reference's rounding of x; the second a dot's double sum of two parts). */
static bool can_reach(const data_bound *b, double x, plumb_dtype limit)
{
    double lim = conf_max_finite(limit);
    if (!isinf(x)) return x * (1.0 + b->uo) * (1.0 + b->uo) * (1.0 + b->gam) >= lim;
    if (lim < 2.0 * conf_max_finite(b->t)) return true;
    /* An accumulator with a wider exponent range than the output: x
     * overflowed the output type but bounds it no more, so use the data-
     * independent bound (k + 1) terms of the largest magnitude. */
    double m = conf_max_finite(b->in);
    if (b->j->terms == TERMS_BILINEAR) m *= m;
    return (double)(b->j->k + 1) * m * (1.0 + b->gam) >= lim;
}

/* Σ|terms| of an element as two parts: P and N; when one overflowed the
 * output type, the data-independent bound (k + 1)·M (M the largest term)
 * and 0 instead. */
static void terms_abs(const data_bound *b, double p, double n, double *a1, double *a2)
{
    /* NaN: the part overflowed an output format without infinities */
    if (!isinf(p) && !isinf(n) && !isnan(p) && !isnan(n)) { *a1 = p; *a2 = n; return; }
    double m = conf_max_finite(b->in);
    if (b->j->terms == TERMS_BILINEAR) m *= m;
    *a1 = (double)(b->j->k + 1) * m;
    *a2 = 0;
}

/* docs/conformance.md, "Overflow of partial sums": whether a result that
 * is NaN or infinite, or should be, is one some order of accumulation in
 * the declared accumulator produces, given P and N of the element. On
 * false, why says what no order can produce. */
static bool overflow_ok(const data_bound *b, double p, double n, uint64_t gb, uint64_t wb, double gv, double wv,
                        char *why, size_t cap)
{
    plumb_dtype t = b->t;
    if (bits_is_nan(t, wb)) {
        snprintf(why, cap, "the exact result is NaN (a NaN term, 0·inf, or +inf and -inf terms): every order gives NaN");
        return false;
    }
    /* want is no NaN, so there is no NaN term: a NaN part sum overflowed
     * an output format without infinities (FN, FNUZ) */
    if (isnan(p)) p = INFINITY;
    if (isnan(n)) n = INFINITY;
    bool plus_acc = can_reach(b, p, b->acc), minus_acc = can_reach(b, n, b->acc);
    bool plus_out = can_reach(b, p, t), minus_out = can_reach(b, n, t);
    double omax = conf_max_finite(t), half = overflow_half_ulp(t);
    double a1, a2;
    terms_abs(b, p, n, &a1, &a2);
    bool w_inf = bits_is_inf(t, wb), w_neg = (wb & sign_mask(t)) != 0;
    const char *acc = plumb_dtype_name(b->acc);
    if (bits_is_nan(t, gb)) {
        /* NaN needs a +inf and a -inf partial result meeting; in an
         * accumulator without infinities (a FN/FNUZ format summed in
         * itself) one overflowing partial sum is NaN already. */
        const plumb_fpfmt *af = plumb_fpfmt_get(b->acc);
        bool nan_acc = af && (af->nan == PLUMB_FPNAN_FN || af->nan == PLUMB_FPNAN_FNUZ || af->nan == PLUMB_FPNAN_E8M0);
        bool ok = nan_acc ? (plus_acc || minus_acc) : w_inf ? (w_neg ? plus_acc : minus_acc) : (plus_acc && minus_acc);
        if (!ok)
            snprintf(why, cap, "NaN needs partial sums of both signs to overflow %s, but P = %.6g, N = %.6g "
                     "(sums of the positive and negative terms) cannot in any order", acc, p, n);
        return ok;
    }
    if (bits_is_inf(t, gb)) {
        bool g_neg = (gb & sign_mask(t)) != 0;
        bool reach_acc = g_neg ? minus_acc : plus_acc;
        if (w_inf) {
            /* the opposite infinity: only if want's infinity came from
             * overflowing finite terms that some order keeps finite */
            bool ok = reach_acc && (w_neg ? minus_out : plus_out);
            if (!ok)
                snprintf(why, cap, "%s needs the %s terms to overflow %s and the exact infinity to come from "
                         "finite terms (P = %.6g, N = %.6g)", g_neg ? "-inf" : "+inf", g_neg ? "negative" : "positive",
                         acc, p, n);
            return ok;
        }
        /* a finite exact result: an overflowing partial sum, or a final
         * rounding within the bound of the overflow threshold */
        double gap = (omax - (g_neg ? -wv : wv)) + half;
        if (reach_acc || gap <= bound_at(b, a1, a2, omax)) return true;
        snprintf(why, cap, "the exact result is finite, the %s terms (%s = %.6g) cannot overflow %s in any order, "
                 "and the overflow threshold is %.3g away, bound %.3g", g_neg ? "negative" : "positive", g_neg ? "N" : "P",
                 g_neg ? n : p, acc, gap, bound_at(b, a1, a2, omax));
        return false;
    }
    /* got finite, want ±inf: only if the finite terms alone reach the
     * threshold (an infinite term gives ±inf or NaN in every order) and got
     * is within the bound of it */
    bool reach = w_neg ? minus_out : plus_out;
    double gap = (omax - (w_neg ? -gv : gv)) + half;
    if (reach && gap <= bound_at(b, a1, a2, omax)) return true;
    if (!reach)
        snprintf(why, cap, "the exact result is %s from an infinite term (the finite terms, P = %.6g, N = %.6g, "
                 "cannot overflow): every order gives an infinity or NaN", w_neg ? "-inf" : "+inf", p, n);
    else
        snprintf(why, cap, "got is %.3g below the overflow threshold, bound %.3g", gap, bound_at(b, a1, a2, omax));
    return false;
}

/* Bernstein's inequality for a sum of T independent terms, each at most m
 * above its mean and with variance at most var: P(sum - mean > t) <=
 * exp(-t^2 / (2·(T·var + m·t/3))). Returns the t at which that bound
 * equals alpha, so a sum beyond mean + t has probability below alpha
 * under the null hypothesis however small T is. */
static double bernstein_excess(double T, double var, double m, double alpha)
{
    double l = log(1.0 / alpha), a = m * l / 3.0;
    return a + sqrt(a * a + 2.0 * T * var * l);
}

/* The DATA class: |got − want| ≤ γ(k)·A + c·(u_out·|want| + η_out) +
 * k_mul·η_acc·(1 + γ(k)), c = 2 when the accumulator is wider than the
 * output (the backend's own final rounding) else 1, A from the |x| program;
 * infinities and NaN by the overflow rule (overflow_ok); plus the
 * TOSA-style statistics. */
static void check_data(const conf_case *c, const plumb_tensor *g, const plumb_tensor *w, const plumb_tensor *wf,
                       const plumb_tensor *abs_t, const sign_parts *sp, uint32_t k, const judge *j,
                       const conf_check_opts *o, worst *ws, conf_result *r)
{
    plumb_dtype t = w->dtype;
    if (!plumb_dtype_is_float(t)) {
        judge je = {PLUMB_AGREE_EXACT, false, 0, 0, TERMS_NONE, false, PLUMB_F32, 0, 0};
        check_exact(g, w, wf, k, &je, o, ws);
        return;
    }
    plumb_dtype acc = c->dtype;
    if (c->dtype < PLUMB_DTYPE_COUNT && plumb_dtype_is_float(o->accum[c->dtype])) acc = o->accum[c->dtype];
    if (!plumb_dtype_is_float(acc)) acc = t;
    /* Scatter applies its update body once per update, and the spec's body
     * computes on tensors of the element type: every application rounds to
     * it, whatever accumulator the backend declares for sums and dots
     * (docs/conformance.md). */
    if (c->op == PLUMB_OP_SCATTER) acc = t;
    /* a dot algorithm names the accumulation, whatever the backend declares */
    if (j->alg) acc = j->alg_acc;
    double ua = conf_unit_roundoff(acc), uo = conf_unit_roundoff(t);
    if (j->alg && j->alg_ua > ua) ua = j->alg_ua;
    double gam = conf_gamma(j->k, ua);
    /* γ(k) is void once k·u >= 1 (a bf16 dot with a declared bf16
     * accumulator at K >= 256, f16 at K >= 2048). Summation and inner
     * products in any order, rounding to nearest, err by at most k·u·Σ|x|
     * with no restriction on k (Rump, BIT 52 (2012); Jeannerod and Rump,
     * SIAM J. Matrix Anal. Appl. 34(2) (2013); docs/certify.md), so
     * k·u is the bound there. Below it γ(k) >= k·u is kept (no earlier
     * verdict moves). A small float format summed in itself keeps the void
     * bound its certificate states: the theorem excludes overflow, which
     * its finite-only formats reach in partial sums. */
    bool k_u = isinf(gam) && !(c->dtype < PLUMB_DTYPE_COUNT && plumb_dtype_is_small_float(c->dtype));
    if (k_u) gam = (double)j->k * ua;
    /* a split algorithm sums products p̃ with |p̃ − a·b| <= eps·|a·b|:
     * γ(k)·Σ|p̃| + eps·Σ|a·b| <= (γ(k)·(1 + eps) + eps)·Σ|a·b| */
    if (j->alg_eps > 0) gam = gam * (1.0 + j->alg_eps) + j->alg_eps;
    double out_terms = ua < uo ? 2.0 : 1.0;
    double slack = o->flushes_subnormals ? (double)(2 * j->k + 2) * (min_normal(acc) > min_normal(t) ? min_normal(acc) : min_normal(t)) : 0.0;
    /* Underflow (Higham §2.1: fl(x op y) = (x op y)(1 + δ) + η, |η| ≤ η_min,
     * η = 0 for additions): each rounding to the output type errs by up to
     * η_out absolutely, each product in the accumulator by η_acc, which the
     * later additions scale by at most 1 + γ(k). */
    double eta = out_terms * conf_underflow_eta(t) + (double)j->k_mul * conf_underflow_eta(acc) * (1.0 + gam);
    data_bound db = {t, acc, plumb_dtype_is_float(c->dtype) ? c->dtype : t, j, gam, uo, out_terms, eta + slack};
    uint64_t ne = plumb_tensor_numel(w);
    double sum_e = 0, sum_e2 = 0, expect_n = 0, max_b2 = 0;
    uint64_t n_stat = 0, mismatches = 0;
    for (uint64_t i = 0; i < ne; i++) {
        uint64_t gb = plumb_load_bits(t, g->data, i), wb = plumb_load_bits(t, w->data, i);
        double gv = plumb_load_f64(t, g->data, i), wv = plumb_load_f64(t, w->data, i);
        double a = abs_t ? fabs(plumb_load_f64(t, abs_t->data, i)) : fabs(wv);
        /* Σ|x| NaN beside a finite want: it overflowed an output format
         * without infinities (no term is NaN, or want would be) */
        if (isnan(a) && !bits_is_nan(t, wb)) a = INFINITY;
        if (bits_is_nan(t, wb) || bits_is_inf(t, wb) || bits_is_nan(t, gb) || bits_is_inf(t, gb)) {
            if (exact_equal(t, gb, wb, false)) continue;
            if (wf && exact_equal(t, gb, plumb_load_bits(t, wf->data, i), false)) continue;
            if (sp) {
                char why[300];
                if (overflow_ok(&db, part_sum(sp, k, i, false), part_sum(sp, k, i, true), gb, wb, gv, wv, why,
                                sizeof why))
                    continue;
                note(ws, CONF_BUDGET_MISMATCH, k, i, t, gb, wb, why);
                continue;
            }
            /* Products (multiply bodies): a product whose |x| product
             * overflows may round to infinity in another order. */
            if (isinf(a) && !bits_is_nan(t, gb) && !bits_is_nan(t, wb)) continue;
            note(ws, CONF_BUDGET_MISMATCH, k, i, t, gb, wb, "special value (NaN or infinity) must match exactly");
            continue;
        }
        /* Σ|x| overflowed the output type: P and N (each finite unless
         * it overflowed too), else the data-independent bound */
        double a1 = a, a2 = 0;
        if (isinf(a) && sp) terms_abs(&db, part_sum(sp, k, i, false), part_sum(sp, k, i, true), &a1, &a2);
        double err = fabs(gv - wv);
        double bound = bound_at(&db, a1, a2, wv);
        double budget;
        if (err == 0) budget = 0;
        else if (bound == 0 || isnan(bound)) budget = CONF_BUDGET_MISMATCH;
        else budget = err / bound;
        if (budget > ws->budget || (budget > 1.0 && !ws->reason[0])) {
            char what[200];
            snprintf(what, sizeof what, "error %.3g, bound %.3g = %s(%llu)·Σ|x| (Σ|x| = %.6g, u = 2^%d) + %g·u_out·|want| + underflow %.3g%s",
                     err, bound, k_u ? "u·" : "γ", (unsigned long long)j->k, a1 + a2, (int)lround(log2(ua)), out_terms, eta,
                     slack > 0 ? " + flush-to-zero slack" : "");
            note(ws, budget, k, i, t, gb, wb, what);
        }
        if (uo > ua && isfinite(a)) {
            uint64_t nb = (wb & ~sign_mask(t)) + 1;
            uint8_t buf[8] = {0};
            plumb_store_bits(t, buf, 0, nb);
            double ulp_o = fabs(plumb_load_f64(t, buf, 0)) - fabs(wv);
            double p = ulp_o > 0 ? 2.0 * (gam * a + (double)j->k_mul * conf_underflow_eta(acc) * (1.0 + gam)) / ulp_o : 1.0;
            expect_n += p < 1.0 ? p : 1.0;
            if (gb != wb) mismatches++;
        }
        /* TOSA-style statistics: the signed error in units of u_acc·Σ|x|. */
        double unit = ua * a;
        if (unit > 0 && isfinite(unit)) {
            double e = (gv - wv) / unit;
            /* the element's own bound in these units: the largest |e|
             * an honest backend can produce here */
            double b = isfinite(bound) ? bound / unit : INFINITY;
            if (b * b > max_b2) max_b2 = b * b;
            sum_e += e;
            sum_e2 += e * e;
            n_stat++;
        }
    }
    if (n_stat == 0) return;
    if (uo > ua) {
        /* The output is coarser than the accumulator, so a correct backend
         * differs from the reference only when the exact value lies within
         * γ(k)·Σ|x| of a rounding boundary of the output type: element i
         * mismatches with probability at most p_i = 2·γ(k)·Σ|x|/ulp_out.
         * A lower-precision accumulator mismatches far more often. */
        if (expect_n == 0 && mismatches == 0) return;
        double limit = expect_n + CONF_STAT_MISMATCH_SIGMAS * sqrt(expect_n) + CONF_STAT_MISMATCH_SLACK;
        double rate = (double)mismatches / (double)n_stat;
        if (rate > r->mse_per_bound) r->mse_per_bound = rate;
        if ((double)mismatches > limit) {
            snprintf(ws->reason, sizeof ws->reason,
                     "output %u: %llu of %llu elements differ from the correctly rounded sum where a %s "
                     "accumulator allows at most %.3g (expected %.3g + %g·sqrt + %g): the accumulation is "
                     "less precise than declared (frequency statistic)",
                     k, (unsigned long long)mismatches, (unsigned long long)n_stat, plumb_dtype_name(acc), limit,
                     expect_n, CONF_STAT_MISMATCH_SIGMAS, CONF_STAT_MISMATCH_SLACK);
            if (ws->budget <= 1.0) ws->budget = 1.0 + (double)mismatches / (limit > 0 ? limit : 1.0);
            ws->out = k;
            r->pass = false;
        }
        return;
    }
    /* The statistics model independent roundings in the accumulator; a
     * split algorithm's representation errors are not of that kind (and
     * are far above u_acc), so its elements are judged by the bound only. */
    if (j->alg_eps > 0) return;
    double T = (double)n_stat, K = (double)j->k + 1.0;
    double mse = sum_e2 / T, mean = sum_e / T;
    if (mse / K > r->mse_per_bound) r->mse_per_bound = mse / K;
    if (fabs(mean) > fabs(r->mean_signed_per_bound)) r->mean_signed_per_bound = mean;
    bool symmetric = c->value_class && (!strcmp(c->value_class, "normal") || !strcmp(c->value_class, "uniform") ||
                                        !strcmp(c->value_class, "loguniform"));
    /* The TOSA thresholds hold for large T only (an element may err by up
     * to b = its bound, up to about K, so one element alone can exceed
     * 0.4·K). Under the null hypothesis (independent errors, E[e²] ≤ K/3,
     * E[e] = 0 for symmetric data, |e| ≤ b) e² has variance at most
     * b²·K/3 and exceeds its mean by at most b²; e has variance K/3 and
     * range b. Each threshold is the larger of TOSA's and the Bernstein
     * bound at CONF_STAT_ALPHA, so few elements cannot fail an honest
     * backend while large tensors keep TOSA's rule. */
    double mse_limit = CONF_STAT_MSE_FACTOR * K * T, bias_limit = CONF_STAT_BIAS_FACTOR * sqrt(K * T);
    if (isfinite(max_b2)) {
        double small_mse = K * T / 3.0 + bernstein_excess(T, max_b2 * K / 3.0, max_b2, CONF_STAT_ALPHA);
        double small_bias = bernstein_excess(T, K / 3.0, sqrt(max_b2), CONF_STAT_ALPHA / 2.0);
        if (small_mse > mse_limit) mse_limit = small_mse;
        if (small_bias > bias_limit) bias_limit = small_bias;
    } else {
        mse_limit = bias_limit = INFINITY;
    }
    if (sum_e2 > mse_limit) {
        snprintf(ws->reason, sizeof ws->reason,
                 "output %u: error variance too large for the declared %s accumulator: mean squared error "
                 "%.3g (u·Σ|x| units) > %.3g = max(%.2g·(k+1), small-sample bound at p %g) over %llu elements "
                 "(TOSA-style statistic)",
                 k, plumb_dtype_name(acc), mse, mse_limit / T, CONF_STAT_MSE_FACTOR, CONF_STAT_ALPHA,
                 (unsigned long long)n_stat);
        if (ws->budget <= 1.0) ws->budget = 1.0 + sum_e2 / mse_limit;
        ws->out = k;
        r->pass = false;
    } else if (symmetric && T >= 2 && fabs(sum_e) > bias_limit) {
        snprintf(ws->reason, sizeof ws->reason,
                 "output %u: biased errors for the declared %s accumulator: mean signed error %.3g (u·Σ|x| units), "
                 "|sum| %.3g > %.3g = max(%.2g·sqrt((k+1)·T), small-sample bound at p %g) over %llu elements "
                 "(TOSA-style statistic)",
                 k, plumb_dtype_name(acc), mean, fabs(sum_e), bias_limit, CONF_STAT_BIAS_FACTOR, CONF_STAT_ALPHA,
                 (unsigned long long)n_stat);
        if (ws->budget <= 1.0) ws->budget = 1.0 + fabs(sum_e) / bias_limit;
        ws->out = k;
        r->pass = false;
    }
}

/* ---- triangular_solve and cholesky ---------------------------------------------- */

/* The op's attributes and which case inputs its operands are (-1: not a
 * parameter), read before the module is freed. */
typedef struct linalg_site {
    bool found;
    ir_attrs at;
    int opnd[2];
} linalg_site;

static linalg_site linalg_find(const conf_case *c, const ir_module *m)
{
    linalg_site s;
    memset(&s, 0, sizeof s);
    if (c->op != PLUMB_OP_TRIANGULAR_SOLVE && c->op != PLUMB_OP_CHOLESKY) return s;
    ir_op *op = case_op(m, c->op);
    if (!op) return s;
    s.found = true;
    s.at = op->a;
    for (uint32_t i = 0; i < 2; i++) {
        s.opnd[i] = -1;
        if (i < op->n_operands && !op->operands[i]->def && op->operands[i]->index < c->n_inputs)
            s.opnd[i] = (int)op->operands[i]->index;
    }
    return s;
}

/* Judged by the bounds of conformance/check_linalg.c (docs/spec/linalg.md);
 * an op whose operands are not the case's inputs cannot be, and fails. */
static void check_linalg(const conf_case *c, const linalg_site *s, const plumb_tensor *g, const plumb_tensor *w,
                         uint32_t k, worst *ws)
{
    conf_linalg_verdict v;
    memset(&v, 0, sizeof v);
    bool chol = c->op == PLUMB_OP_CHOLESKY;
    if (!s->found || s->opnd[0] < 0 || (!chol && s->opnd[1] < 0)) {
        v.budget = CONF_BUDGET_MISMATCH;
        snprintf(v.reason, sizeof v.reason, "%s's operands are not the case's inputs: no bound", plumb_op_name(c->op));
    } else if (chol) {
        conf_linalg_chol_judge(s->at.lower, c->inputs[s->opnd[0]], g, w, &v);
    } else {
        conf_linalg_trsm_judge(&s->at, c->inputs[s->opnd[0]], c->inputs[s->opnd[1]], g, w, &v);
    }
    if (!(v.budget <= CONF_BUDGET_MISMATCH)) v.budget = CONF_BUDGET_MISMATCH;   /* inf or NaN: fails */
    if (v.budget > ws->budget) {
        ws->budget = v.budget;
        ws->out = k;
        ws->idx = v.idx;
        snprintf(ws->reason, sizeof ws->reason, "output %u: %s", k, v.reason);
    }
}

/* ---- fft ------------------------------------------------------------------------- */

/* The op's fft_type and fft_length and which case input its operand is
 * (-1: not a parameter), copied before the module is freed. */
typedef struct fft_site {
    bool found;
    ir_fft_type type;
    int64_t len[3];
    uint32_t k;
    int opnd;
} fft_site;

static fft_site fft_find(const conf_case *c, const ir_module *m)
{
    fft_site s;
    memset(&s, 0, sizeof s);
    s.opnd = -1;
    if (c->op != PLUMB_OP_FFT) return s;
    ir_op *op = case_op(m, c->op);
    if (!op || op->a.fft_length.n < 1 || op->a.fft_length.n > 3) return s;
    s.found = true;
    s.type = op->a.fft_type;
    memcpy(s.len, op->a.fft_length.v, op->a.fft_length.n * sizeof *s.len);
    s.k = op->a.fft_length.n;
    if (!op->operands[0]->def && op->operands[0]->index < c->n_inputs) s.opnd = (int)op->operands[0]->index;
    return s;
}

/* Judged by the normwise bound of conformance/check_fft.c (docs/spec/fft.md). */
static void check_fft(const conf_case *c, const fft_site *s, const plumb_tensor *g, const plumb_tensor *w, uint32_t k,
                      worst *ws)
{
    conf_fft_verdict v;
    memset(&v, 0, sizeof v);
    if (!s->found || s->opnd < 0) {
        v.budget = CONF_BUDGET_MISMATCH;
        snprintf(v.reason, sizeof v.reason, "fft's operand is not the case's input: no bound");
    } else {
        ir_ints lens = {(int64_t *)s->len, s->k};
        conf_fft_judge(s->type, &lens, c->inputs[s->opnd], g, w, &v);
    }
    if (!(v.budget <= CONF_BUDGET_MISMATCH)) v.budget = CONF_BUDGET_MISMATCH;   /* inf or NaN: fails */
    if (v.budget > ws->budget) {
        ws->budget = v.budget;
        ws->out = k;
        ws->idx = v.idx;
        snprintf(ws->reason, sizeof ws->reason, "output %u: %s", k, v.reason);
    }
}

/* ---- batch norm ------------------------------------------------------------------ */

/* The op's attributes and which case inputs its operands are (-1: not a
 * parameter), read before the module is freed. */
typedef struct bn_site {
    bool found;
    double epsilon;
    int64_t feature_index;
    int opnd[5];
    uint32_t n;
} bn_site;

static bn_site bn_find(const conf_case *c, const ir_module *m)
{
    bn_site s;
    memset(&s, 0, sizeof s);
    if (!conf_op_batch_norm(c->op)) return s;
    ir_op *op = case_op(m, c->op);
    if (!op || op->n_operands > 5) return s;
    s.found = true;
    s.epsilon = op->a.epsilon;
    s.feature_index = op->a.feature_index;
    s.n = op->n_operands;
    for (uint32_t i = 0; i < s.n; i++) {
        s.opnd[i] = -1;
        if (!op->operands[i]->def && op->operands[i]->index < c->n_inputs) s.opnd[i] = (int)op->operands[i]->index;
    }
    return s;
}

/* Judged by the bound of conformance/check_batchnorm.c (docs/spec/batchnorm.md). */
static void check_bn(const conf_case *c, const bn_site *s, const plumb_tensor *g, const plumb_tensor *w, uint32_t k,
                     worst *ws)
{
    conf_bn_verdict v;
    memset(&v, 0, sizeof v);
    const plumb_tensor *in[5] = {NULL};
    bool ok = s->found;
    for (uint32_t i = 0; ok && i < s->n; i++) {
        ok = s->opnd[i] >= 0;
        if (ok) in[i] = c->inputs[s->opnd[i]];
    }
    if (!ok) {
        v.budget = CONF_BUDGET_MISMATCH;
        snprintf(v.reason, sizeof v.reason, "%s's operands are not the case's inputs: no bound", plumb_op_name(c->op));
    } else {
        conf_bn_judge(c->op, s->epsilon, s->feature_index, in, k, g, w, &v);
    }
    if (!(v.budget <= CONF_BUDGET_MISMATCH)) v.budget = CONF_BUDGET_MISMATCH;   /* inf or NaN: fails */
    if (v.budget > ws->budget) {
        ws->budget = v.budget;
        ws->out = k;
        ws->idx = v.idx;
        snprintf(ws->reason, sizeof ws->reason, "output %u: %s", k, v.reason);
    }
}

/* ---- the entry point ------------------------------------------------------------ */

/* ---- complex results (docs/spec/complex.md, "Numerics") ----------------------
 * A complex tensor is checked as its component type with twice the
 * elements (real, imaginary): plumb_load_bits reaches only the real part of
 * a complex<f64> element, so a whole-element comparison would miss the
 * imaginary one. */
static plumb_tensor component_view(const plumb_tensor *x)
{
    plumb_tensor v = *x;
    if (!plumb_dtype_is_complex(x->dtype)) return v;
    v.dtype = plumb_dtype_component(x->dtype);
    v.rank = 1;
    v.dims[0] = 2 * (int64_t)plumb_tensor_numel(x);
    return v;
}

/* The runtime's bound per complex op, in units of the component type's u,
 * plus the reference's own rounding (half an ulp, at most u): add,
 * subtract, negate, real and imag exact; multiply componentwise (2u,
 * Kahan's fma form: Jeannerod, Louvet, Muller 2013); power 64u normwise for
 * |w log z| < 2^6; the others 4u normwise (docs/spec/complex.md's table). */
static double complex_bound_u(plumb_opcode op)
{
    switch (op) {
    case PLUMB_OP_ADD: case PLUMB_OP_SUBTRACT: case PLUMB_OP_NEGATE: case PLUMB_OP_REAL: case PLUMB_OP_IMAG:
    case PLUMB_OP_CONJ:   /* a sign flip */
    case PLUMB_OP_MAXIMUM: case PLUMB_OP_MINIMUM: case PLUMB_OP_CLAMP:   /* an operand's element, copied whole */
        return 0;
    case PLUMB_OP_MULTIPLY: return 3;
    case PLUMB_OP_POWER: return 65;
    default: return 5;
    }
}

/* Both components non-finite the same way, or both finite. */
static bool same_class(double g, double w)
{
    if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
    if (isinf(g) || isinf(w)) return g == w;
    return true;
}

static void check_complex(plumb_opcode op, const plumb_tensor *g, const plumb_tensor *w, uint32_t k,
                          const judge *j, const conf_check_opts *o, worst *ws)
{
    plumb_tensor gv = component_view(g), wv = component_view(w);
    double K = complex_bound_u(op);
    if (K == 0) {
        check_exact(&gv, &wv, NULL, k, j, o, ws);
        return;
    }
    plumb_dtype ct = wv.dtype;
    bool cplx = plumb_dtype_is_complex(w->dtype);
    double u = conf_unit_roundoff(ct), eta = K * conf_underflow_eta(ct);
    uint64_t ne = plumb_tensor_numel(w);
    for (uint64_t i = 0; i < ne; i++) {
        uint64_t e = cplx ? 2 * i : i;
        double gr = plumb_load_f64(ct, gv.data, e), wr = plumb_load_f64(ct, wv.data, e);
        double gi = cplx ? plumb_load_f64(ct, gv.data, e + 1) : 0, wi = cplx ? plumb_load_f64(ct, wv.data, e + 1) : 0;
        double budget;
        char what[200];
        /* the component shown: the one further off (imaginary at e + 1) */
        uint64_t shown = cplx && fabs(gi - wi) > fabs(gr - wr) ? e + 1 : e;
        if (cplx && (!same_class(gr, wr) || isnan(gr - wr)) && same_class(gi, wi)) shown = e;
        else if (cplx && !same_class(gi, wi)) shown = e + 1;
        if (!isfinite(gr) || !isfinite(gi) || !isfinite(wr) || !isfinite(wi)) {
            /* a NaN or infinite component must come back the same (C11
             * Annex G's special values); the finite one within the bound */
            bool ok = same_class(gr, wr) && same_class(gi, wi);
            double b = 0;
            for (int c = 0; ok && c < 2; c++) {
                double gc = c ? gi : gr, wc = c ? wi : wr;
                if (isfinite(wc)) b = fmax(b, fabs(gc - wc) / (K * u * fabs(wc) + eta));
            }
            budget = ok ? b : CONF_BUDGET_MISMATCH;
            snprintf(what, sizeof what, "%s", ok ? "componentwise bound beside a non-finite component"
                                                 : "a NaN or infinite component differs (C11 Annex G special values)");
        } else if (op == PLUMB_OP_MULTIPLY) {
            double br = fabs(gr - wr) / (K * u * fabs(wr) + eta), bi = fabs(gi - wi) / (K * u * fabs(wi) + eta);
            budget = fmax(br, bi);
            snprintf(what, sizeof what, "componentwise error (%.3g, %.3g), bound %gu per component (complex multiply)",
                     fabs(gr - wr), fabs(gi - wi), K);
        } else {
            double err = hypot(gr - wr, gi - wi), mag = hypot(wr, wi);
            budget = err / (K * u * mag + eta);
            snprintf(what, sizeof what, "normwise error %.3g of |want| %.3g, bound %gu (docs/spec/complex.md)", err,
                     mag, K);
        }
        if (cplx && budget > 0) {
            size_t l = strlen(what);
            snprintf(what + l, sizeof what - l, "; shown: the %s part", shown == e ? "real" : "imaginary");
        }
        if (budget > 0)
            note(ws, budget, k, i, ct, plumb_load_bits(ct, gv.data, shown), plumb_load_bits(ct, wv.data, shown), what);
    }
}

/* ---- complex reduce-add and dot_general (docs/spec/complex.md, "Sums and
 * dots") ---------------------------------------------------------------------
 * Each component of a complex sum is a real sum, so Higham's bound (Accuracy
 * and Stability of Numerical Algorithms, 2nd ed., §3.1) holds per component:
 * |Re err| <= γ(n-1)·Σ|Re x_i|, likewise Im. Re(a·b) summed over k terms is
 * a real sum of 2k products ar·br and -ai·bi, so (§3.1, §3.6)
 * |Re err| <= γ(2k)·Σ(|ar||br| + |ai||bi|) and |Im err| <=
 * γ(2k)·Σ(|ar||bi| + |ai||br|). The Σ terms come from reference runs on
 * mapped inputs (the reference sums each component exactly and rounds once):
 * reduce on (|re|, |im|); dot on lhs (|ar|, |ai|) with rhs (|br|, -|bi|)
 * (Re = Σ|ar||br| + |ai||bi|) and with rhs (|bi|, -|br|) (Re = Σ|ar||bi| +
 * |ai||br|). Reduce-multiply bodies have no such bound here: a complex
 * product's components mix both parts of every factor. */
typedef enum cmap { CMAP_ABS, CMAP_ABS_CONJ, CMAP_SWAP_CONJ } cmap;

/* Copies of the inputs with the first complex input mapped to (|re|, |im|)
 * and the second (a dot's rhs) by how2. */
static plumb_tensor **cmap_inputs(const conf_case *c, cmap how2, plumb_diag *d)
{
    plumb_tensor **v = plumb_calloc(c->n_inputs ? c->n_inputs : 1, sizeof *v);
    if (!v) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "conformance: out of memory"); return NULL; }
    uint32_t nc = 0;
    for (uint32_t i = 0; i < c->n_inputs; i++) {
        v[i] = plumb_tensor_clone(c->inputs[i], d);
        if (!v[i]) { free_inputs(v, c->n_inputs); return NULL; }
        if (!plumb_dtype_is_complex(v[i]->dtype)) {
            /* a real operand of a real x complex dot: |a| */
            if (plumb_dtype_is_float(v[i]->dtype))
                for (uint64_t e = 0, ne = plumb_tensor_numel(v[i]); e < ne; e++)
                    plumb_store_bits(v[i]->dtype, v[i]->data, e,
                                     plumb_load_bits(v[i]->dtype, v[i]->data, e) & ~sign_mask(v[i]->dtype));
            continue;
        }
        cmap how = nc++ == 1 ? how2 : CMAP_ABS;
        plumb_dtype ct = plumb_dtype_component(v[i]->dtype);
        for (uint64_t e = 0, ne = plumb_tensor_numel(v[i]); e < ne; e++) {
            uint64_t re = plumb_load_bits(ct, v[i]->data, 2 * e) & ~sign_mask(ct);
            uint64_t im = plumb_load_bits(ct, v[i]->data, 2 * e + 1) & ~sign_mask(ct);
            if (how == CMAP_ABS_CONJ) im |= sign_mask(ct);
            if (how == CMAP_SWAP_CONJ) { uint64_t s = re; re = im; im = s | sign_mask(ct); }
            plumb_store_bits(ct, v[i]->data, 2 * e, re);
            plumb_store_bits(ct, v[i]->data, 2 * e + 1, im);
        }
    }
    return v;
}

/* Ops judged as complex dots: dot_general, dot, and convolution and dynamic_conv,
 * each result element a dot of lhs elements with kernel elements (a
 * padding position a zero lhs term; j->k counts the terms) */
static bool csum_dot_op(plumb_opcode op)
{
    return op == PLUMB_OP_DOT_GENERAL || op == PLUMB_OP_DOT || op == PLUMB_OP_CONVOLUTION || op == PLUMB_OP_DYNAMIC_CONV;
}

/* A real x complex dot_general (either side real): each component of
 * its result is a real dot of k terms, Re = Σ a·br and Im = Σ a·bi, so
 * Higham's dot bound holds per component with γ(k) and the Σ terms of one
 * reference run on (|a|, (|br|, |bi|)). */
static bool csum_mixed(const conf_case *c)
{
    if (c->op != PLUMB_OP_DOT_GENERAL || c->n_inputs != 2) return false;
    plumb_dtype a = c->inputs[0]->dtype, b = c->inputs[1]->dtype;
    return (plumb_dtype_is_complex(a) && plumb_dtype_is_float(b)) || (plumb_dtype_is_float(a) && plumb_dtype_is_complex(b));
}

static bool csum_case(const conf_case *c, const judge *j)
{
    if (c->dtype >= PLUMB_DTYPE_COUNT || !plumb_dtype_is_complex(c->dtype) || j->agree != PLUMB_AGREE_DATA) return false;
    if (c->op == PLUMB_OP_REDUCE) return j->terms == TERMS_LINEAR && c->n_inputs == 2;
    uint32_t n_in = c->op == PLUMB_OP_DYNAMIC_CONV ? 3 : 2;   /* dynamic_conv's padding: an integer input */
    return csum_dot_op(c->op) && !j->alg && c->n_inputs == n_in &&
           ((plumb_dtype_is_complex(c->inputs[0]->dtype) && plumb_dtype_is_complex(c->inputs[1]->dtype)) ||
            csum_mixed(c));
}

/* Runs the reference on the mapped inputs: s[0] the real-part Σ terms, s[1]
 * (dots only) the imaginary-part ones, both read from the real parts. */
static bool csum_runs(ir_module *m, const conf_case *c, plumb_ref_result *s, uint32_t *n, plumb_diag *d)
{
    *n = 0;
    bool dot = csum_dot_op(c->op) && !csum_mixed(c);
    for (uint32_t r = 0; r < (dot ? 2u : 1u); r++) {
        plumb_tensor **v = cmap_inputs(c, r ? CMAP_SWAP_CONJ : dot ? CMAP_ABS_CONJ : CMAP_ABS, d);
        if (!v) return false;
        bool ok = run_ref(m, v, c->n_inputs, &s[r], d);
        free_inputs(v, c->n_inputs);
        if (!ok) return false;
        (*n)++;
    }
    return true;
}

static void check_csum(const conf_case *c, const plumb_tensor *g, const plumb_tensor *w, const plumb_ref_result *s,
                       uint32_t k, const judge *j, const conf_check_opts *o, worst *ws)
{
    plumb_tensor gv = component_view(g), wv = component_view(w);
    plumb_dtype ct = wv.dtype;
    bool dot = csum_dot_op(c->op) && !csum_mixed(c), mixed = csum_mixed(c);
    double u = conf_unit_roundoff(ct);
    uint64_t n = dot ? 2 * j->k : j->k;
    double gam = conf_gamma(n, u);
    /* each real product may underflow once; the backend's and the
     * reference's final roundings once each */
    double eta = ((dot || mixed ? n : 0) + 2) * conf_underflow_eta(ct);
    if (o->flushes_subnormals) eta += (double)(n + 2) * min_normal(ct);
    const plumb_tensor *s0 = s[0].outputs[k], *s1 = dot ? s[1].outputs[k] : NULL;
    plumb_tensor sv0 = component_view(s0), sv1 = s1 ? component_view(s1) : sv0;
    for (uint64_t i = 0, ne = plumb_tensor_numel(w); i < ne; i++) {
        for (uint32_t p = 0; p < 2; p++) {
            uint64_t e = 2 * i + p;
            double gc = plumb_load_f64(ct, gv.data, e), wc = plumb_load_f64(ct, wv.data, e);
            char what[300];
            if (!isfinite(gc) || !isfinite(wc)) {
                if (same_class(gc, wc)) continue;
                snprintf(what, sizeof what, "a NaN or infinite %s part differs", p ? "imaginary" : "real");
                note(ws, CONF_BUDGET_MISMATCH, k, i, ct, plumb_load_bits(ct, gv.data, e), plumb_load_bits(ct, wv.data, e), what);
                continue;
            }
            /* the reference rounded Σ once: the exact Σ is at most (1 + u) times it */
            double sum = dot ? plumb_load_f64(ct, (p ? sv1 : sv0).data, 2 * i)
                             : plumb_load_f64(ct, sv0.data, e);
            sum = fabs(sum) * (1.0 + 2.0 * u);
            double err = fabs(gc - wc), bound = gam * sum + 2.0 * u * fabs(wc) + eta;
            if (err == 0) continue;
            double budget = bound > 0 ? err / bound : CONF_BUDGET_MISMATCH;
            snprintf(what, sizeof what, "%s part: error %.3g, bound %.3g = γ(%llu)·Σ %.6g + 2u·|want| + underflow "
                     "(complex %s, per component)", p ? "imaginary" : "real", err, bound, (unsigned long long)n, sum,
                     dot || mixed ? "dot" : "sum");
            note(ws, budget, k, i, ct, plumb_load_bits(ct, gv.data, e), plumb_load_bits(ct, wv.data, e), what);
        }
    }
}

/* ---- complex reduce with a multiply body (docs/spec/complex.md, "Products")
 * The reference multiplies in row-major order, each step's components
 * rounded once (normwise relative error <= u); a backend whose complex
 * multiply errs by at most 2u per component (the runtime's published bound)
 * errs by at most 2u normwise per step, in any order: a computed product of
 * m factors is P·Π(1 + δ_i) with |δ_i| <= ε, so |got - P| <= ((1 + 2u)^m -
 * 1)|P| and |want - P| <= ((1 + u)^m - 1)|P|, and |P| <= |want| / (2 - (1 +
 * u)^m). m is the reduced length (the init value is one more factor).
 * Holds while no partial product overflows or underflows: the generator's
 * factors have modulus in [0.8, 1.25]. */
static void check_cprod(const plumb_tensor *g, const plumb_tensor *w, uint32_t k, const judge *j, worst *ws)
{
    plumb_tensor gv = component_view(g), wv = component_view(w);
    plumb_dtype ct = wv.dtype;
    double u = conf_unit_roundoff(ct), m = (double)j->k;
    double eb = expm1(m * log1p(2 * u)), er = expm1(m * log1p(u));
    double rel = (eb + er) / (1 - er);
    for (uint64_t i = 0, ne = plumb_tensor_numel(w); i < ne; i++) {
        double gr = plumb_load_f64(ct, gv.data, 2 * i), gi = plumb_load_f64(ct, gv.data, 2 * i + 1);
        double wr = plumb_load_f64(ct, wv.data, 2 * i), wi = plumb_load_f64(ct, wv.data, 2 * i + 1);
        uint64_t e = fabs(gr - wr) >= fabs(gi - wi) || isnan(gr - wr) ? 2 * i : 2 * i + 1;
        if (!isfinite(gr) || !isfinite(gi) || !isfinite(wr) || !isfinite(wi)) {
            if (same_class(gr, wr) && same_class(gi, wi)) continue;
            note(ws, CONF_BUDGET_MISMATCH, k, i, ct, plumb_load_bits(ct, gv.data, e), plumb_load_bits(ct, wv.data, e),
                 "a NaN or infinite component differs (complex product)");
            continue;
        }
        double err = hypot(gr - wr, gi - wi), bound = rel * hypot(wr, wi);
        if (err == 0) continue;
        char what[200];
        snprintf(what, sizeof what, "normwise error %.3g of |want| %.3g, bound %.3g = ((1+2u)^%g - 1 + (1+u)^%g - 1)/"
                 "(2 - (1+u)^%g)·|want| (complex product of %g factors)", err, hypot(wr, wi), bound, m, m, m, m);
        note(ws, bound > 0 ? err / bound : CONF_BUDGET_MISMATCH, k, i, ct, plumb_load_bits(ct, gv.data, e),
             plumb_load_bits(ct, wv.data, e), what);
    }
}

bool conf_check_case(const conf_case *c, plumb_tensor *const *got, uint32_t n_got,
                     const conf_check_opts *o, conf_result *r, plumb_diag *d)
{
    memset(r, 0, sizeof *r);
    r->pass = true;
    conf_check_opts none;
    if (!o) { memset(&none, 0, sizeof none); none.preserves_nan_payload = true; o = &none; }
    ir_module *m = ir_parse(c->program, strlen(c->program), c->id, NULL, d);
    if (!m) return false;
    if (!ir_verify(m, NULL, d)) { ir_module_free(m); return false; }
    plumb_ref_result want, want_ftz, want_abs, want_cs[2];
    uint32_t n_cs = 0;
    sign_parts parts;
    memset(&parts, 0, sizeof parts);
    memset(&want_ftz, 0, sizeof want_ftz);
    memset(&want_abs, 0, sizeof want_abs);
    bool ok = run_ref(m, c->inputs, c->n_inputs, &want, d);
    if (!ok) { ir_module_free(m); return false; }
    judge j = judge_case_inputs(c, m);
    linalg_site lsite = linalg_find(c, m);
    bn_site bsite = bn_find(c, m);
    fft_site fsite = fft_find(c, m);
    bool have_ftz = false, have_abs = false;
    if (o->flushes_subnormals) {
        bool changed = false;
        plumb_tensor **fi = map_inputs(c, MAP_FTZ, &changed, d);
        if (!fi) ok = false;
        else if (changed) ok = have_ftz = run_ref(m, fi, c->n_inputs, &want_ftz, d);
        free_inputs(fi, c->n_inputs);
    }
    if (ok && j.agree == PLUMB_AGREE_DATA) {
        bool changed = false;
        plumb_tensor **ai = map_inputs(c, MAP_ABS, &changed, d);
        if (!ai) ok = false;
        else ok = have_abs = run_ref(m, ai, c->n_inputs, &want_abs, d);
        free_inputs(ai, c->n_inputs);
    }
    bool csum = csum_case(c, &j);
    if (ok && csum) ok = csum_runs(m, c, want_cs, &n_cs, d);
    if (ok && j.agree == PLUMB_AGREE_DATA && j.terms != TERMS_NONE) {
        /* P and N only matter for infinite or NaN results, and for Σ|x|
         * when it overflowed the output type (few cases: the runs cost 2
         * or 4 reference executions) */
        bool need = false;
        uint32_t nfloat = 0;
        for (uint32_t i = 0; i < c->n_inputs; i++) nfloat += plumb_dtype_is_float(c->inputs[i]->dtype);
        for (uint32_t k = 0; k < want.n_outputs && !need; k++) {
            need = has_nonfinite(want.outputs[k]) || (have_abs && has_nonfinite(want_abs.outputs[k]));
            if (!need && k < n_got && got[k] && got[k]->dtype == want.outputs[k]->dtype &&
                got[k]->nbytes == want.outputs[k]->nbytes)
                need = has_nonfinite(got[k]);
        }
        /* a dot's terms split by sign only as products of its two operands */
        if (need && (j.terms == TERMS_LINEAR || nfloat == 2)) ok = run_parts(m, c, j.terms, &parts, d);
    }
    ir_module_free(m);
    if (!ok) goto done;

    worst ws;
    memset(&ws, 0, sizeof ws);
    if (n_got != want.n_outputs) {
        snprintf(ws.reason, sizeof ws.reason, "the backend returned %u outputs, the program has %u", n_got,
                 want.n_outputs);
        ws.budget = CONF_BUDGET_MISMATCH;
        r->pass = false;
        goto verdict;
    }
    for (uint32_t k = 0; k < n_got; k++) {
        const plumb_tensor *g = got[k], *w = want.outputs[k];
        bool same_type = g && g->dtype == w->dtype && g->rank == w->rank &&
                         plumb_tensor_numel(g) == plumb_tensor_numel(w) && g->nbytes == w->nbytes;
        for (uint32_t i = 0; same_type && i < w->rank; i++) same_type = g->dims[i] == w->dims[i];
        if (!same_type) {
            plumb_buf gb, wb;
            plumb_buf_init(&gb);
            plumb_buf_init(&wb);
            if (g) plumb_tensor_type_print(&gb, g); else plumb_buf_puts(&gb, "nothing");
            plumb_tensor_type_print(&wb, w);
            snprintf(ws.reason, sizeof ws.reason, "output %u: got %s, want %s", k, gb.data ? gb.data : "?",
                     wb.data ? wb.data : "?");
            plumb_buf_free(&gb);
            plumb_buf_free(&wb);
            ws.budget = CONF_BUDGET_MISMATCH;
            ws.out = k;
            r->pass = false;
            goto verdict;
        }
        const plumb_tensor *wf = have_ftz ? want_ftz.outputs[k] : NULL;
        if (csum && plumb_dtype_is_complex(w->dtype)) {
            check_csum(c, g, w, want_cs, k, &j, o, &ws);
            continue;
        }
        /* complex reduce with a multiply body: normwise (check_cprod) */
        if (c->op == PLUMB_OP_REDUCE && plumb_dtype_is_complex(w->dtype) && j.agree == PLUMB_AGREE_DATA &&
            j.terms == TERMS_NONE) {
            check_cprod(g, w, k, &j, &ws);
            continue;
        }
        /* atan2: its complex cases come from gen.c's complex_more family,
         * inputs away from the pole (docs/spec/complex.md) */
        if (c->dtype < PLUMB_DTYPE_COUNT && plumb_dtype_is_complex(c->dtype) &&
            (conf_complex_family_op(c->op) || c->op == PLUMB_OP_ATAN2)) {
            check_complex(c->op, g, w, k, &j, o, &ws);
            continue;
        }
        plumb_tensor gv, wv, wfv;
        if (plumb_dtype_is_complex(w->dtype) && j.agree == PLUMB_AGREE_EXACT) {
            /* complex results of the other exact ops (convert to complex,
             * data movement): per component */
            gv = component_view(g);
            wv = component_view(w);
            if (wf) { wfv = component_view(wf); wf = &wfv; }
            g = &gv;
            w = &wv;
        }
        switch (j.agree) {
        case PLUMB_AGREE_EXACT: check_exact(g, w, wf, k, &j, o, &ws); break;
        case PLUMB_AGREE_ULP: check_ulp(c->op, g, w, wf, k, o, &ws); break;
        case PLUMB_AGREE_DATA:
            if (c->op == PLUMB_OP_TRIANGULAR_SOLVE || c->op == PLUMB_OP_CHOLESKY) {
                check_linalg(c, &lsite, g, w, k, &ws);
                break;
            }
            if (conf_op_batch_norm(c->op)) {
                check_bn(c, &bsite, g, w, k, &ws);
                break;
            }
            if (c->op == PLUMB_OP_FFT) {
                check_fft(c, &fsite, g, w, k, &ws);
                break;
            }
            check_data(c, g, w, wf, have_abs ? want_abs.outputs[k] : NULL, parts.n ? &parts : NULL, k, &j, o, &ws, r);
            break;
        }
    }
verdict:
    r->budget_used = ws.budget;
    r->worst_output = ws.out;
    r->worst_index = ws.idx;
    if (ws.budget > 1.0) r->pass = false;
    if (!r->pass) snprintf(r->reason, sizeof r->reason, "%s", ws.reason[0] ? ws.reason : "outputs disagree");
done:
    plumb_ref_result_free(&want);
    if (have_ftz) plumb_ref_result_free(&want_ftz);
    if (have_abs) plumb_ref_result_free(&want_abs);
    for (uint32_t i = 0; i < n_cs; i++) plumb_ref_result_free(&want_cs[i]);
    parts_free(&parts);
    return ok;
}
