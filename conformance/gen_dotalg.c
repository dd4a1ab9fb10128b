/* The dot algorithm family (docs/spec/dotalg.md, "Conformance"): one
 * dot_general case per algorithm StableHLO's verifier knows, on operands
 * of a type wider than the precision types (f32; f64 for f64/f64/f64) so
 * that the operand rounding matters, plus the bf16 and f16 operand types
 * with their own precision and accumulation. The shape is gen.c's "odd"
 * dot (7x13 · 13x5): 13 products per element, so a backend that skips the
 * rounding to bf16 or tf32 errs by about 2^-9·Σ|x| or 2^-12·Σ|x| where the
 * bound is γ(13)·2^-24·Σ|x|. */
#include <stdio.h>

#include <gsl/gsl_randist.h>

#include "dotalg_gen.h"
#include "plumb/dotalg.h"
#include "plumb/fp8.h"

#define ALG(l, r, c, n, imp) {true, imp, (int16_t)(l), (int16_t)(r), (int16_t)(c), 1, 1, n}
#define TF IR_DOTALG_TF32

const conf_dotalg_case conf_dotalg_cases[] = {
    {"alg_bf16_bf16_f32", PLUMB_F32, ALG(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 1, false)},
    {"alg_bf16_bf16_bf16", PLUMB_F32, ALG(PLUMB_BF16, PLUMB_BF16, PLUMB_BF16, 1, false)},
    {"alg_bf16_bf16_f32_x3", PLUMB_F32, ALG(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 3, false)},
    {"alg_bf16_bf16_f32_x6", PLUMB_F32, ALG(PLUMB_BF16, PLUMB_BF16, PLUMB_F32, 6, false)},
    {"alg_tf32_tf32_f32", PLUMB_F32, ALG(TF, TF, PLUMB_F32, 1, false)},
    {"alg_tf32_tf32_f32_x3", PLUMB_F32, ALG(TF, TF, PLUMB_F32, 3, false)},
    {"alg_f16_f16_f32", PLUMB_F32, ALG(PLUMB_F16, PLUMB_F16, PLUMB_F32, 1, false)},
    {"alg_f16_f16_f16", PLUMB_F32, ALG(PLUMB_F16, PLUMB_F16, PLUMB_F16, 1, false)},
    {"alg_f32_f32_f32", PLUMB_F32, ALG(PLUMB_F32, PLUMB_F32, PLUMB_F32, 1, false)},
    {"alg_f64_f64_f64", PLUMB_F64, ALG(PLUMB_F64, PLUMB_F64, PLUMB_F64, 1, false)},
    {"alg_f8e4m3fn_f8e4m3fn_f32", PLUMB_F32, ALG(PLUMB_F8E4M3FN, PLUMB_F8E4M3FN, PLUMB_F32, 1, false)},
    {"alg_f8e5m2_f8e4m3fn_f32", PLUMB_F32, ALG(PLUMB_F8E5M2, PLUMB_F8E4M3FN, PLUMB_F32, 1, false)},
    {"alg_f8e4m3fnuz_f8e5m2fnuz_f32_fast", PLUMB_F32, ALG(PLUMB_F8E4M3FNUZ, PLUMB_F8E5M2FNUZ, PLUMB_F32, 1, true)},
    {"alg_f8e3m4_f8e4m3_f32", PLUMB_F32, ALG(PLUMB_F8E3M4, PLUMB_F8E4M3, PLUMB_F32, 1, false)},
    {"alg_f8e4m3b11fnuz_f8e4m3b11fnuz_f32", PLUMB_F32, ALG(PLUMB_F8E4M3B11FNUZ, PLUMB_F8E4M3B11FNUZ, PLUMB_F32, 1, false)},
    {"alg_bf16_bf16_bf16", PLUMB_BF16, ALG(PLUMB_BF16, PLUMB_BF16, PLUMB_BF16, 1, false)},
    {"alg_tf32_tf32_f32", PLUMB_BF16, ALG(TF, TF, PLUMB_F32, 1, false)},
    {"alg_f16_f16_f16", PLUMB_F16, ALG(PLUMB_F16, PLUMB_F16, PLUMB_F16, 1, false)},
};
const size_t conf_dotalg_n_cases = sizeof conf_dotalg_cases / sizeof conf_dotalg_cases[0];

void conf_dotalg_attr(const conf_dotalg_case *c, char *out, size_t cap)
{
    const ir_dot_algorithm *g = &c->alg;
    snprintf(out, cap, "algorithm = <lhs_precision_type = %s, rhs_precision_type = %s, accumulation_type = %s, "
             "lhs_component_count = %lld, rhs_component_count = %lld, num_primitive_operations = %lld, "
             "allow_imprecise_accumulation = %s>", ir_dotalg_type_name(g->lhs_precision_type),
             ir_dotalg_type_name(g->rhs_precision_type), ir_dotalg_type_name(g->accumulation_type),
             (long long)g->lhs_component_count, (long long)g->rhs_component_count,
             (long long)g->num_primitive_operations, g->allow_imprecise_accumulation ? "true" : "false");
}

bool conf_dotalg_fill(plumb_tensor *x, gsl_rng *rng)
{
    plumb_dtype t = x->dtype;
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        double v = gsl_ran_gaussian(rng, 1.0);
        uint64_t b;
        switch (t) {
        case PLUMB_F64: b = plumb_f64_bits(v); break;
        case PLUMB_F32: b = plumb_f32_bits((float)v); break;
        case PLUMB_F16: b = plumb_f64_to_f16(v); break;
        case PLUMB_BF16: b = plumb_f64_to_bf16(v); break;
        default: return false;
        }
        plumb_store_bits(t, x->data, (size_t)i, b);
    }
    return true;
}
