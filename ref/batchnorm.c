/* stablehlo.batch_norm_inference, batch_norm_training and batch_norm_grad
 * (op set v2, docs/spec/batchnorm.md).
 *
 * Semantics (StableHLO spec, by decomposition into reduce, broadcast_in_dim
 * and elementwise arithmetic): with f = feature_index, every feature c
 * (index c of dimension f) is normalized over the N elements x_j of the
 * operand whose index in dimension f is c (N = size(operand) / dim(f)):
 *   inference: y_j = scale_c * (x_j - mean_c) / sqrt(variance_c + eps)
 *              + offset_c
 *   training:  batch_mean_c = (sum_j x_j) / N,
 *              batch_var_c = (sum_j (x_j - batch_mean_c)^2) / N (biased),
 *              output = inference(x, scale, offset, batch_mean, batch_var)
 *   grad:      with d_j = x_j - mean_c, q = variance_c + eps, s = sqrt(q),
 *              grad_offset_c = sum_j g_j,
 *              grad_scale_c = sum_j g_j * d_j / s,
 *              grad_operand_j = scale_c / s / N
 *                               * (N g_j - sum g - d_j * (sum g d) / q)
 *              (XLA's batchnorm_expander, which the spec quotes).
 * eps is the f32 attribute rounded to the element type, as StableHLO's
 * interpreter does (constant(epsilon) in the operand's element type).
 *
 * Numerics: the reference evaluates these formulas on the exact values, not
 * the spec's chain of roundings. The sums sum x, sum x^2, sum g and sum g*x
 * are exact (ref/accum.c's exact accumulator, with the reduce's +0.0 init
 * value as the first term). From them, per feature,
 *   batch_mean = S / N and batch_var = (N Q - S^2) / N^2   (S = sum x,
 *   Q = sum x^2; the biased variance of the data, exactly), and
 *   output_j = scale (N x_j - S) / sqrt(N Q - S^2 + eps N^2) + offset;
 *   grad_offset = G, grad_scale = P / s, grad_operand_j =
 *   scale ((N g_j - G) q - d_j P) / (N q s)   (G = sum g, P = sum g x -
 *   mean G = sum g d).
 * Every numerator and every sum, difference and product of inputs above is
 * exact in MPFR at W = 4 span + 512 bits (span: the bits between the
 * element type's largest and smallest subnormal exponents), which holds the
 * widest of them (a product of three exact sums at most); the only inexact
 * steps are the square root, the divisions and inference's and training's
 * final add of offset, each at W bits. Each result element is then rounded
 * once, to nearest even, into the element type: batch_mean, batch_var and
 * grad_offset are correctly rounded; the others carry a relative error
 * below 2^(8-W) before that rounding (2^-664 for f16, 2^-1612 for f32).
 * Special values follow MPFR's IEEE arithmetic on these formulas: a NaN or
 * an infinity among a feature's x makes its variance NaN (inf - inf), so
 * that feature's output is NaN; a zero divisor gives inf or NaN (0/0: a
 * constant feature with eps = 0; an empty reduction, N = 0, gives a NaN
 * mean and variance). grad is the exception: its rewrite has other
 * infinities and NaNs than the spec's order, so P's special values come
 * from sum g (x - mean) term by term (bn_special_term) and a feature with
 * a special q, G or P (or an element with a special g, x or mean) takes
 * the spec's formula (bn_grad_operand_ieee). */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "accum.h"
#include "ref_internal.h"

/* The operand viewed as [outer, F, inner] around dimension f. */
typedef struct bn_shape {
    uint64_t outer, F, inner, N;
} bn_shape;

static bool bn_shape_of(ref_ctx *c, const ir_op *op, const plumb_tensor *x, bn_shape *s)
{
    int64_t fi = op->a.feature_index;
    if (fi < 0 || (uint64_t)fi >= x->rank)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "feature_index %lld is outside the operand's rank %u",
                        (long long)fi, x->rank);
    s->outer = s->inner = 1;
    for (uint32_t d = 0; d < x->rank; d++) {
        if ((int64_t)d < fi) s->outer *= (uint64_t)x->dims[d];
        if ((int64_t)d > fi) s->inner *= (uint64_t)x->dims[d];
    }
    s->F = (uint64_t)x->dims[fi];
    s->N = s->outer * s->inner;
    return true;
}

static size_t bn_at(const bn_shape *s, uint64_t o, uint64_t f, uint64_t i)
{
    return (size_t)((o * s->F + f) * s->inner + i);
}

/* W for element type t (see the header). */
static mpfr_prec_t bn_prec(plumb_dtype t)
{
    const plumb_dtype_info *info = plumb_dtype_get(t);
    long bias = (1L << (info->exp_bits - 1)) - 1;
    return (mpfr_prec_t)(4 * (2 * bias + (long)info->mant_bits) + 512);
}

/* The accumulated sum as an exact MPFR value, with ref_acc's special-value
 * and signed-zero rules. */
static void acc_get(ref_acc *a, mpfr_t out)
{
    if (a->nan || (a->pinf && a->ninf))
        mpfr_set_nan(out);
    else if (a->pinf)
        mpfr_set_inf(out, 1);
    else if (a->ninf)
        mpfr_set_inf(out, -1);
    else if (mpfr_zero_p(a->m))
        mpfr_set_zero(out, a->all_negzero ? -1 : 1);
    else
        mpfr_set(out, a->m, MPFR_RNDN);   /* exact: W >= the sum's bits */
}

/* epsilon (an f32 value) rounded to the element type t. */
static double bn_eps(plumb_dtype t, double eps)
{
    mpfr_t e;
    mpfr_init2(e, 64);
    mpfr_set_d(e, eps, MPFR_RNDN);
    uint64_t bits = ref_mpfr_to_bits(e, t), buf = 0;
    mpfr_clear(e);
    plumb_store_bits(t, &buf, 0, bits);
    return plumb_load_f64(t, &buf, 0);
}

static double ld(const plumb_tensor *t, size_t i) { return plumb_load_f64(t->dtype, t->data, i); }

static void st(plumb_tensor *t, size_t i, mpfr_t v) { plumb_store_bits(t->dtype, t->data, i, ref_mpfr_to_bits(v, t->dtype)); }

/* The special values of P = sum g (x - mean) as the spec's decomposition
 * forms it: term by term, x - mean first. The exact rewrite H - mean G
 * (H = sum g x) has the same finite value but not the same infinities and
 * NaNs (g = inf with x = 0 and mean = 1 gives inf there and NaN here). */
typedef struct bn_special {
    bool nan, pinf, ninf;
} bn_special;

static void bn_special_term(bn_special *sp, double g, double x, double m)
{
    if (isnan(g) || isnan(x) || isnan(m)) {
        sp->nan = true;
        return;
    }
    /* d = x - mean: IEEE's value where an operand is infinite (inf - inf
     * is NaN), otherwise finite and only its sign matters here */
    double d = isinf(x) || isinf(m) ? x - m : (double)((x > m) - (x < m));
    if (!isinf(g) && !isinf(d) && !isnan(d))
        return;   /* a finite term */
    if (isnan(d) || g == 0.0 || d == 0.0) {
        sp->nan = true;   /* inf * 0 */
        return;
    }
    if ((g > 0) == (d > 0)) sp->pinf = true;
    else sp->ninf = true;
}

enum { T_A, T_B, T_N, T_S, T_Q, T_D, T_P, T_E, T_COUNT };

bool ref_op_BATCH_NORM_INFERENCE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *scale = in[1], *offset = in[2], *mean = in[3], *var = in[4];
    plumb_tensor *y = out[0];
    bn_shape s;
    if (!bn_shape_of(c, op, x, &s))
        return false;
    double eps = bn_eps(x->dtype, op->a.epsilon);
    mpfr_t v[T_COUNT];
    for (int k = 0; k < T_COUNT; k++) mpfr_init2(v[k], bn_prec(x->dtype));
    bool ok = true;
    for (uint64_t f = 0; f < s.F && ok; f++) {
        /* D = sqrt(variance + eps); the sum is exact */
        mpfr_set_d(v[T_D], ld(var, f), MPFR_RNDN);
        mpfr_add_d(v[T_D], v[T_D], eps, MPFR_RNDN);
        mpfr_sqrt(v[T_D], v[T_D], MPFR_RNDN);
        double m = ld(mean, f), sc = ld(scale, f), of = ld(offset, f);
        for (uint64_t o = 0; o < s.outer; o++)
            for (uint64_t i = 0; i < s.inner; i++) {
                size_t at = bn_at(&s, o, f, i);
                mpfr_set_d(v[T_A], ld(x, at), MPFR_RNDN);
                mpfr_sub_d(v[T_A], v[T_A], m, MPFR_RNDN);     /* exact */
                mpfr_mul_d(v[T_A], v[T_A], sc, MPFR_RNDN);    /* exact */
                mpfr_div(v[T_A], v[T_A], v[T_D], MPFR_RNDN);
                mpfr_add_d(v[T_A], v[T_A], of, MPFR_RNDN);
                st(y, at, v[T_A]);
            }
        ok = ref_poll(c, op);
    }
    for (int k = 0; k < T_COUNT; k++) mpfr_clear(v[k]);
    return ok;
}

bool ref_op_BATCH_NORM_TRAINING(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *scale = in[1], *offset = in[2];
    plumb_tensor *y = out[0], *bmean = out[1], *bvar = out[2];
    bn_shape s;
    if (!bn_shape_of(c, op, x, &s))
        return false;
    double eps = bn_eps(x->dtype, op->a.epsilon);
    mpfr_t v[T_COUNT];
    for (int k = 0; k < T_COUNT; k++) mpfr_init2(v[k], bn_prec(x->dtype));
    ref_acc S, Q;
    ref_acc_init(&S, true);
    ref_acc_init(&Q, true);
    mpfr_set_ui(v[T_N], 0, MPFR_RNDN);
    mpfr_add_d(v[T_N], v[T_N], (double)s.N, MPFR_RNDN);   /* N < 2^53: sizes are bounded far below */
    bool ok = true;
    for (uint64_t f = 0; f < s.F && ok; f++) {
        ref_acc_reset(&S);
        ref_acc_reset(&Q);
        ref_acc_add(&S, 0.0);   /* the reduce's init value */
        ref_acc_add(&Q, 0.0);
        for (uint64_t o = 0; o < s.outer; o++)
            for (uint64_t i = 0; i < s.inner; i++) {
                double xv = ld(x, bn_at(&s, o, f, i));
                ref_acc_add(&S, xv);
                ref_acc_add_prod(&Q, xv, xv);
            }
        acc_get(&S, v[T_S]);
        acc_get(&Q, v[T_Q]);
        /* batch_mean = S / N */
        mpfr_div(v[T_A], v[T_S], v[T_N], MPFR_RNDN);
        st(bmean, f, v[T_A]);
        /* P = N Q - S^2 (exact), batch_var = P / N^2 */
        mpfr_mul(v[T_P], v[T_N], v[T_Q], MPFR_RNDN);
        mpfr_sqr(v[T_A], v[T_S], MPFR_RNDN);
        mpfr_sub(v[T_P], v[T_P], v[T_A], MPFR_RNDN);
        mpfr_sqr(v[T_E], v[T_N], MPFR_RNDN);
        mpfr_div(v[T_A], v[T_P], v[T_E], MPFR_RNDN);
        st(bvar, f, v[T_A]);
        /* D = sqrt(P + eps N^2) */
        mpfr_mul_d(v[T_E], v[T_E], eps, MPFR_RNDN);   /* exact */
        mpfr_add(v[T_D], v[T_P], v[T_E], MPFR_RNDN);
        mpfr_sqrt(v[T_D], v[T_D], MPFR_RNDN);
        double sc = ld(scale, f), of = ld(offset, f);
        for (uint64_t o = 0; o < s.outer; o++)
            for (uint64_t i = 0; i < s.inner; i++) {
                size_t at = bn_at(&s, o, f, i);
                mpfr_mul_d(v[T_A], v[T_N], ld(x, at), MPFR_RNDN);   /* exact */
                mpfr_sub(v[T_A], v[T_A], v[T_S], MPFR_RNDN);         /* exact */
                mpfr_mul_d(v[T_A], v[T_A], sc, MPFR_RNDN);           /* exact */
                mpfr_div(v[T_A], v[T_A], v[T_D], MPFR_RNDN);
                mpfr_add_d(v[T_A], v[T_A], of, MPFR_RNDN);
                st(y, at, v[T_A]);
            }
        ok = ref_poll(c, op);
    }
    ref_acc_clear(&S);
    ref_acc_clear(&Q);
    for (int k = 0; k < T_COUNT; k++) mpfr_clear(v[k]);
    return ok;
}

/* grad_operand = scale / (N s) (N g - G - d P / q), d = x - mean, in the
 * spec's order at W bits (T_N = N, T_S = G, T_P = P, T_E = q; T_D is
 * N q s, so s is recomputed): for features or elements holding a special
 * value, whose result is then special or exactly 0 (q = inf), so the
 * order's roundings do not matter. The result is left in T_A. */
static void bn_grad_operand_ieee(mpfr_t *v, double g, double x, double m, double sc)
{
    mpfr_sqrt(v[T_B], v[T_E], MPFR_RNDN);                 /* s */
    mpfr_mul(v[T_B], v[T_B], v[T_N], MPFR_RNDN);          /* N s */
    mpfr_set_d(v[T_Q], sc, MPFR_RNDN);
    mpfr_div(v[T_Q], v[T_Q], v[T_B], MPFR_RNDN);          /* scale / (N s) */
    mpfr_set_d(v[T_B], x, MPFR_RNDN);
    mpfr_sub_d(v[T_B], v[T_B], m, MPFR_RNDN);             /* d */
    mpfr_div(v[T_A], v[T_P], v[T_E], MPFR_RNDN);          /* P / q */
    mpfr_mul(v[T_B], v[T_B], v[T_A], MPFR_RNDN);          /* d P / q */
    mpfr_mul_d(v[T_A], v[T_N], g, MPFR_RNDN);
    mpfr_sub(v[T_A], v[T_A], v[T_S], MPFR_RNDN);          /* N g - G */
    mpfr_sub(v[T_A], v[T_A], v[T_B], MPFR_RNDN);
    mpfr_mul(v[T_A], v[T_A], v[T_Q], MPFR_RNDN);
}

bool ref_op_BATCH_NORM_GRAD(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    const plumb_tensor *x = in[0], *scale = in[1], *mean = in[2], *var = in[3], *g = in[4];
    plumb_tensor *gx = out[0], *gscale = out[1], *goffset = out[2];
    bn_shape s;
    if (!bn_shape_of(c, op, x, &s))
        return false;
    double eps = bn_eps(x->dtype, op->a.epsilon);
    mpfr_t v[T_COUNT];
    for (int k = 0; k < T_COUNT; k++) mpfr_init2(v[k], bn_prec(x->dtype));
    ref_acc G, H;
    ref_acc_init(&G, true);
    ref_acc_init(&H, true);
    mpfr_set_ui(v[T_N], 0, MPFR_RNDN);
    mpfr_add_d(v[T_N], v[T_N], (double)s.N, MPFR_RNDN);
    bool ok = true;
    for (uint64_t f = 0; f < s.F && ok; f++) {
        ref_acc_reset(&G);
        ref_acc_reset(&H);
        ref_acc_add(&G, 0.0);
        ref_acc_add(&H, 0.0);
        double m = ld(mean, f), sc = ld(scale, f);
        bn_special sp = {false, false, false};
        for (uint64_t o = 0; o < s.outer; o++)
            for (uint64_t i = 0; i < s.inner; i++) {
                size_t at = bn_at(&s, o, f, i);
                double gv = ld(g, at), xv = ld(x, at);
                ref_acc_add(&G, gv);
                ref_acc_add_prod(&H, gv, xv);
                bn_special_term(&sp, gv, xv, m);
            }
        acc_get(&G, v[T_S]);
        acc_get(&H, v[T_Q]);
        st(goffset, f, v[T_S]);
        /* P = H - mean G = sum g (x - mean), exact */
        mpfr_mul_d(v[T_A], v[T_S], m, MPFR_RNDN);
        mpfr_sub(v[T_P], v[T_Q], v[T_A], MPFR_RNDN);
        if (sp.nan || (sp.pinf && sp.ninf))
            mpfr_set_nan(v[T_P]);
        else if (sp.pinf || sp.ninf)
            mpfr_set_inf(v[T_P], sp.pinf ? 1 : -1);
        /* q = variance + eps (T_E, exact), s = sqrt(q) (T_D) */
        mpfr_set_d(v[T_E], ld(var, f), MPFR_RNDN);
        mpfr_add_d(v[T_E], v[T_E], eps, MPFR_RNDN);
        mpfr_sqrt(v[T_D], v[T_E], MPFR_RNDN);
        mpfr_div(v[T_A], v[T_P], v[T_D], MPFR_RNDN);
        st(gscale, f, v[T_A]);
        /* the divisor N q s, in T_D */
        mpfr_mul(v[T_D], v[T_D], v[T_E], MPFR_RNDN);
        mpfr_mul(v[T_D], v[T_D], v[T_N], MPFR_RNDN);
        /* a special value among q, G and P: the rewrite below would make
         * NaNs the spec's order of operations does not (q = inf gives
         * (N g - G) q - d P = inf - inf where scale / (N s) is 0), so
         * such features take the spec's formula in IEEE arithmetic */
        bool special = !mpfr_number_p(v[T_E]) || mpfr_sgn(v[T_E]) <= 0 || !mpfr_number_p(v[T_S]) ||
                       !mpfr_number_p(v[T_P]);
        for (uint64_t o = 0; o < s.outer; o++)
            for (uint64_t i = 0; i < s.inner; i++) {
                size_t at = bn_at(&s, o, f, i);
                if (special || !isfinite(ld(g, at)) || !isfinite(ld(x, at)) || !isfinite(m)) {
                    bn_grad_operand_ieee(v, ld(g, at), ld(x, at), m, sc);
                    st(gx, at, v[T_A]);
                    continue;
                }
                /* ((N g - G) q - (x - mean) P) scale, exact */
                mpfr_mul_d(v[T_A], v[T_N], ld(g, at), MPFR_RNDN);
                mpfr_sub(v[T_A], v[T_A], v[T_S], MPFR_RNDN);
                mpfr_mul(v[T_A], v[T_A], v[T_E], MPFR_RNDN);
                mpfr_set_d(v[T_B], ld(x, at), MPFR_RNDN);
                mpfr_sub_d(v[T_B], v[T_B], m, MPFR_RNDN);
                mpfr_mul(v[T_B], v[T_B], v[T_P], MPFR_RNDN);
                mpfr_sub(v[T_A], v[T_A], v[T_B], MPFR_RNDN);
                mpfr_mul_d(v[T_A], v[T_A], sc, MPFR_RNDN);
                mpfr_div(v[T_A], v[T_A], v[T_D], MPFR_RNDN);
                st(gx, at, v[T_A]);
            }
        ok = ref_poll(c, op);
    }
    ref_acc_clear(&G);
    ref_acc_clear(&H);
    for (int k = 0; k < T_COUNT; k++) mpfr_clear(v[k]);
    return ok;
}
