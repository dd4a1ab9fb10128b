/* dot_general's `algorithm` attribute: docs/spec/dotalg.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plumb/dotalg.h"
#include "plumb/fp8.h"

const char *ir_dotalg_type_name(int t)
{
    if (t == IR_DOTALG_TF32) return "tf32";
    if (t >= 0 && t < PLUMB_DTYPE_COUNT && plumb_dtype_is_float((plumb_dtype)t)) return plumb_dtype_name((plumb_dtype)t);
    return "?";
}

bool ir_dotalg_type_parse(const char *s, size_t n, int *out)
{
    if (n == 4 && memcmp(s, "tf32", 4) == 0) {
        *out = IR_DOTALG_TF32;
        return true;
    }
    plumb_dtype t;
    if (!plumb_dtype_parse(s, n, &t) || !plumb_dtype_is_float(t)) return false;
    *out = (int)t;
    return true;
}

double ir_dotalg_unit_roundoff(int t)
{
    if (t == IR_DOTALG_TF32) return ldexp(1.0, -11);
    if (t < 0 || t >= PLUMB_DTYPE_COUNT || !plumb_dtype_is_float((plumb_dtype)t)) return 0.0;
    return ldexp(1.0, -(int)plumb_dtype_get((plumb_dtype)t)->mant_bits - 1);
}

/* TensorFloat-32: 1 sign, 8 exponent (f32's bias and range), 10 fraction
 * bits; the largest finite value is (2 - 2^-10)·2^127, the subnormal
 * spacing 2^-136. */
static double round_tf32(double x)
{
    if (!isfinite(x) || x == 0) return x;
    int e;
    (void)frexp(x, &e);            /* |x| = m·2^e, 0.5 <= m < 1 */
    int q = e - 11;                /* the spacing of 11-bit significands there */
    if (q < -136) q = -136;
    /* x·2^-q is exact (a power-of-two scaling far from either range end)
     * and nearbyint rounds it to nearest even in the default mode */
    double r = ldexp(nearbyint(ldexp(x, -q)), q);
    if (fabs(r) > ldexp(2.0 - ldexp(1.0, -10), 127)) return copysign(INFINITY, x);
    return r;
}

double ir_dotalg_round(int t, double x)
{
    if (t == IR_DOTALG_TF32) return round_tf32(x);
    if (t < 0 || t >= PLUMB_DTYPE_COUNT) return x;
    switch ((plumb_dtype)t) {
    case PLUMB_F64: return x;
    case PLUMB_F32: return (double)(float)x;
    case PLUMB_F16: return plumb_f16_to_f64(plumb_f64_to_f16(x));
    case PLUMB_BF16: return plumb_bf16_to_f64(plumb_f64_to_bf16(x));
    default: {
        const plumb_fpfmt *f = plumb_fpfmt_get((plumb_dtype)t);
        return f ? plumb_small_to_f64(f, plumb_f64_to_small(f, x)) : x;
    }
    }
}

/* StableHLO's isAnyF8: the FP8 formats MLIR names as Float8*Type (not
 * E8M0, which is a scale format). */
static bool any_f8(int t)
{
    return t == PLUMB_F8E3M4 || t == PLUMB_F8E4M3 || t == PLUMB_F8E4M3FN || t == PLUMB_F8E5M2 ||
           t == PLUMB_F8E4M3FNUZ || t == PLUMB_F8E4M3B11FNUZ || t == PLUMB_F8E5M2FNUZ;
}

bool ir_dotalg_known(const ir_dot_algorithm *a)
{
    if (a->lhs_component_count != 1 || a->rhs_component_count != 1) return false;
    int l = a->lhs_precision_type, r = a->rhs_precision_type, c = a->accumulation_type;
    int64_t n = a->num_primitive_operations;
    if (any_f8(l) && any_f8(r) && c == PLUMB_F32 && n == 1) return true;
    if (a->allow_imprecise_accumulation) return false;
    static const struct { int l, r, c; int64_t n; } known[] = {
        {PLUMB_F16, PLUMB_F16, PLUMB_F16, 1}, {PLUMB_F16, PLUMB_F16, PLUMB_F32, 1},
        {PLUMB_BF16, PLUMB_BF16, PLUMB_BF16, 1}, {PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 1},
        {PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 3}, {PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 6},
        {IR_DOTALG_TF32, IR_DOTALG_TF32, PLUMB_F32, 1}, {IR_DOTALG_TF32, IR_DOTALG_TF32, PLUMB_F32, 3},
        {PLUMB_F32, PLUMB_F32, PLUMB_F32, 1}, {PLUMB_F64, PLUMB_F64, PLUMB_F64, 1},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].l == l && known[i].r == r && known[i].c == c && known[i].n == n) return true;
    return false;
}

void ir_dotalg_describe(const ir_dot_algorithm *a, char *out, size_t cap)
{
    snprintf(out, cap, "{lhs:'%s', rhs:'%s', accum:'%s', lhs_components:%lld, rhs_components:%lld, "
             "primitive_ops:%lld, imprecise:%d}", ir_dotalg_type_name(a->lhs_precision_type),
             ir_dotalg_type_name(a->rhs_precision_type), ir_dotalg_type_name(a->accumulation_type),
             (long long)a->lhs_component_count, (long long)a->rhs_component_count,
             (long long)a->num_primitive_operations, a->allow_imprecise_accumulation ? 1 : 0);
}

uint32_t ir_dotalg_split(const ir_dot_algorithm *a)
{
    for (uint32_t k = 1; k <= 4; k++)
        if ((int64_t)(k * (k + 1) / 2) == a->num_primitive_operations) return k;
    return 0;
}

double ir_dotalg_split_eps(const ir_dot_algorithm *a)
{
    uint32_t k = ir_dotalg_split(a);
    if (k <= 1) return 0.0;
    double ul = ir_dotalg_unit_roundoff(a->lhs_precision_type), ur = ir_dotalg_unit_roundoff(a->rhs_precision_type);
    double u = ul > ur ? ul : ur;
    /* a = a_1 + ... + a_k + e_a with a_i the precision type's rounding of
     * what the earlier components left: |a_i| <= (1+u)·u^(i-1)·|a|,
     * |e_a| <= u^k·|a|. The emulation keeps the products with i+j <= k+1;
     * a·b minus them is the dropped products plus A·e_b + e_a·b, where
     * A = Σ a_i, |A| <= (1 + u^k)·|a|. */
    double uk = pow(u, (double)k), eps = uk * (1.0 + uk) + uk;
    for (uint32_t i = 1; i <= k; i++)
        for (uint32_t j = 1; j <= k; j++)
            if (i + j > k + 1) eps += (1.0 + u) * (1.0 + u) * pow(u, (double)(i + j - 2));
    return eps;
}

bool ir_dotalg_applies(const ir_op *op)
{
    return op && op->code == PLUMB_OP_DOT_GENERAL && op->a.algorithm.present && op->n_results == 1 &&
           plumb_dtype_is_float(op->results[0]->type.dtype);
}

bool ir_dotalg_rounds_operands(const ir_op *op)
{
    return ir_dotalg_applies(op) && ir_dotalg_split(&op->a.algorithm) == 1;
}
