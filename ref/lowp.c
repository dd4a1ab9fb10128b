/* Reference kernels of the elementwise ops whose generic float kernels
 * (ref/elementwise.c) work on the IEEE bit layout and so do not fit every
 * small float format: abs, negate, sign, is_finite, is_inf, is_pos_inf,
 * is_neg_inf, compare, and erf_inv, next_after and reduce_precision (ir/lowp.c decides them
 * on the format's value set). The FNUZ formats spend the -0 code on their only
 * NaN, f8E8M0FNU has no sign bit and no zero, the FN formats have no
 * infinity in their top exponent. Every other op on these formats runs the
 * generic kernels, which compute through ref/crmath.c (each result the
 * exact value rounded once by the format's codec, ir/fp8.c).
 *
 * Semantics (docs/spec/types.md, "Ops"):
 *   abs      clears the sign bit (a bit operation, NaN kept); the FNUZ NaN
 *            stays NaN; f8E8M0FNU (no sign) is unchanged.
 *   negate   flips the sign bit (NaN kept); FNUZ: 0 stays 0 and the NaN
 *            stays NaN (there is no -0); f8E8M0FNU: NaN for every value (a
 *            negative value does not exist; the codec's rule for negative
 *            values).
 *   sign     NaN -> NaN (quieted), +-0 -> +-0, otherwise +-1 (f8E8M0FNU: 1).
 *   is_*     by the format's own NaN and infinity codes.
 *   compare  FLOAT: IEEE (NaN unordered, -0 == +0) on the exact values;
 *            TOTALORDER: the sign-magnitude order of the patterns as for
 *            the wide types (-NaN < -inf < ... < -0 < +0 < ... < +NaN; the
 *            FNUZ NaN, pattern 1000..., sorts where -0 would), and for
 *            f8E8M0FNU, all positive, the order of the patterns. */
#include <math.h>

#include "crmath.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"
#include "ref_internal.h"
#include "ref_lowp.h"

#define POLL_EVERY 4096

bool ref_lowp_owns(const ir_op *op)
{
    if (!ir_lowp_elementwise(op) || !op->n_operands || !plumb_fpfmt_get(op->operands[0]->type.dtype))
        return false;
    switch (op->code) {
    case PLUMB_OP_ABS: case PLUMB_OP_NEGATE: case PLUMB_OP_SIGN: case PLUMB_OP_IS_FINITE:
    case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF: case PLUMB_OP_COMPARE:
    case PLUMB_OP_ERF_INV: case PLUMB_OP_NEXT_AFTER: case PLUMB_OP_REDUCE_PRECISION: case PLUMB_OP_CONJ:
        return true;
    default:
        return false;
    }
}

static bool has_sign(const plumb_fpfmt *f) { return f->nan != PLUMB_FPNAN_E8M0; }
static uint32_t sbit(const plumb_fpfmt *f) { return 1u << (f->bits - 1); }
static uint32_t fmask(const plumb_fpfmt *f) { return (1u << f->bits) - 1; }

static uint32_t s_abs(const plumb_fpfmt *f, uint32_t x)
{
    if (!has_sign(f) || (f->nan == PLUMB_FPNAN_FNUZ && plumb_small_is_nan(f, x)))
        return x;
    return x & ~sbit(f);
}

static uint32_t s_negate(const plumb_fpfmt *f, uint32_t x)
{
    if (!has_sign(f))
        return plumb_small_qnan(f);
    if (f->nan == PLUMB_FPNAN_FNUZ && (x & ~sbit(f)) == 0)
        return x;   /* +0 stays +0, the NaN stays NaN */
    return x ^ sbit(f);
}

static uint32_t s_sign(const plumb_fpfmt *f, uint32_t x)
{
    if (plumb_small_is_nan(f, x))   /* quieted, as every float op's NaN (crmath.h) */
        return f->nan == PLUMB_FPNAN_IEEE ? x | (1u << (f->mant - 1)) : x;
    double v = plumb_small_to_f64(f, x);
    if (v == 0)
        return x;
    return plumb_f64_to_small(f, v < 0 ? -1.0 : 1.0);
}

static uint32_t total_key(const plumb_fpfmt *f, uint32_t b)
{
    if (!has_sign(f))
        return b;
    return (b & sbit(f)) ? (~b & fmask(f)) : (b | sbit(f));
}

static bool dir_holds(ir_cmp_dir d, int c)
{
    switch (d) {
    case IR_CMP_EQ: return c == 0;
    case IR_CMP_NE: return c != 0;
    case IR_CMP_LT: return c < 0;
    case IR_CMP_LE: return c <= 0;
    case IR_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static uint32_t s_compare(const plumb_fpfmt *f, ir_cmp_type ty, ir_cmp_dir d, uint32_t a, uint32_t b)
{
    if (ty == IR_CMP_TOTALORDER) {
        uint32_t x = total_key(f, a), y = total_key(f, b);
        return dir_holds(d, (x > y) - (x < y));
    }
    if (plumb_small_is_nan(f, a) || plumb_small_is_nan(f, b))
        return d == IR_CMP_NE;
    double x = plumb_small_to_f64(f, a), y = plumb_small_to_f64(f, b);
    return dir_holds(d, (x > y) - (x < y));
}

bool ref_lowp_run(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    plumb_dtype t = in[0]->dtype;
    const plumb_fpfmt *f = plumb_fpfmt_get(t);
    uint32_t arity = op->code == PLUMB_OP_COMPARE || op->code == PLUMB_OP_NEXT_AFTER ? 2 : 1;
    uint64_t n = plumb_tensor_numel(out[0]);
    if (!f || op->n_operands != arity || op->n_results != 1)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "%s takes %u operand(s) of a small float type",
                        plumb_op_name(op->code), arity);
    for (uint32_t k = 0; k < arity; k++) {
        if (in[k]->dtype != t)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u has element type %s, expected %s", k,
                            plumb_dtype_name(in[k]->dtype), plumb_dtype_name(t));
        if (plumb_tensor_numel(in[k]) != n)
            return ref_fail(c, op, PLUMB_ERR_INVALID, "operand %u has %llu elements but the result has %llu", k,
                            (unsigned long long)plumb_tensor_numel(in[k]), (unsigned long long)n);
    }
    ir_cmp_type ty = op->a.cmp_type == IR_CMP_TYPE_NONE ? IR_CMP_FLOAT : op->a.cmp_type;
    if (op->code == PLUMB_OP_COMPARE && ty != IR_CMP_FLOAT && ty != IR_CMP_TOTALORDER)
        return ref_fail(c, op, PLUMB_ERR_INVALID, "comparison type %s does not apply to element type %s",
                        ty == IR_CMP_SIGNED ? "SIGNED" : "UNSIGNED", plumb_dtype_name(t));
    int eb = op->a.exponent_bits, mb = op->a.mantissa_bits;
    if (op->code == PLUMB_OP_REDUCE_PRECISION && (eb < 1 || mb < 0))
        return ref_fail(c, op, PLUMB_ERR_INVALID,
                        "exponent_bits must be >= 1 and mantissa_bits >= 0 (got %d and %d)", eb, mb);
    for (uint64_t i = 0; i < n; i++) {
        if (i % POLL_EVERY == 0 && i && !ref_poll(c, op))
            return false;
        uint32_t x = (uint32_t)plumb_load_bits(t, in[0]->data, i), r;
        switch (op->code) {
        case PLUMB_OP_ABS: r = s_abs(f, x); break;
        case PLUMB_OP_NEGATE: r = s_negate(f, x); break;
        case PLUMB_OP_CONJ: r = x; break;   /* a real value is its own conjugate, bit for bit */
        case PLUMB_OP_SIGN: r = s_sign(f, x); break;
        case PLUMB_OP_IS_FINITE: r = !plumb_small_is_nan(f, x) && !plumb_small_is_inf(f, x); break;
        case PLUMB_OP_IS_INF: r = plumb_small_is_inf(f, x); break;
        case PLUMB_OP_IS_POS_INF: r = plumb_small_is_inf(f, x) && !(x & sbit(f)); break;
        case PLUMB_OP_IS_NEG_INF: r = plumb_small_is_inf(f, x) && (x & sbit(f)); break;
        case PLUMB_OP_ERF_INV: r = ir_lowp_erf_inv(f, x); break;   /* ir/lowp.c */
        case PLUMB_OP_REDUCE_PRECISION: r = ir_lowp_reduce_precision(f, x, eb, mb); break;   /* ir/lowp.c */
        case PLUMB_OP_NEXT_AFTER: r = ir_lowp_next_after(f, x, (uint32_t)plumb_load_bits(t, in[1]->data, i)); break;
        default:
            r = s_compare(f, ty, op->a.cmp_dir, x, (uint32_t)plumb_load_bits(t, in[1]->data, i));
            break;
        }
        plumb_store_bits(out[0]->dtype, out[0]->data, i, r);
    }
    return true;
}
