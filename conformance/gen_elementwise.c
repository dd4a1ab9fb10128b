/* Elementwise cases: one program per op, type, shape and value class, the
 * exhaustive 16-bit sweeps of the unary float ops and the specials-crossed
 * sweeps of the binary ones (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

bool conf_gen_elementwise(gen *g, plumb_dtype target)
{
    plumb_opcode op = g->op;
    plumb_dtype t = g->t;
    const plumb_op_info *oi = plumb_op_get(op);
    shp s = conf_gen_ew_shape(g->shape);
    bool bc = !strcmp(g->shape, "broadcast");
    const char *T = conf_gen_tys(g, t, s.rank, s.dims);
    const char *I1 = conf_gen_tys(g, PLUMB_I1, s.rank, s.dims);
    switch (op) {
    case PLUMB_OP_SELECT:
        conf_gen_param(g, "p", PLUMB_I1, s.rank, s.dims, "uniform", 0, 0);
        conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        conf_gen_ew_operand(g, "y", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.select %%p, %%x, %%y : %s, %s\n", I1, T);
        g->ret_types = T;
        break;
    case PLUMB_OP_CLAMP:
        conf_gen_param(g, "lo", t, s.rank, s.dims, g->value, 0, 0);
        conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        conf_gen_ew_operand(g, "hi", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.clamp %%lo, %%x, %%hi : %s\n", T);
        g->ret_types = T;
        break;
    case PLUMB_OP_COMPARE: {
        conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
        conf_gen_ew_operand(g, "y", t, s, bc, g->value);
        const char *ct = plumb_dtype_is_float(t) ? (g->rep % 2 ? ", TOTALORDER" : ", FLOAT") : "";
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y%s : (%s, %s) -> %s\n",
                         conf_gen_cmp_dirs[(g->ordinal + g->rep) % 6], ct, T, T, I1);
        g->ret_types = I1;
        break;
    }
    case PLUMB_OP_CONVERT: {
        conf_gen_ew_operand(g, "x", t, s, bc, g->value);
        const char *U = conf_gen_tys(g, target, s.rank, s.dims);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.convert %%x : (%s) -> %s\n", T, U);
        g->ret_types = U;
        break;
    }
    case PLUMB_OP_REDUCE_PRECISION: {
        static const char *fmts[] = {"e5m2", "e4m3", "e5m10", "e8m7"};
        conf_gen_ew_operand(g, "x", t, s, bc, g->value);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = %s : %s\n",
                         fmts[(g->ordinal + g->rep) % 4], T);
        g->ret_types = T;
        break;
    }
    default:
        if (oi->arity == 1) {
            conf_gen_ew_operand(g, "x", t, s, bc, g->value);
            if (conf_gen_pred_op(op)) {
                plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
                g->ret_types = I1;
            } else {
                plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
                g->ret_types = T;
            }
        } else {
            conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
            conf_gen_ew_operand(g, "y", t, s, bc, g->value);
            plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", oi->name, T);
            g->ret_types = T;
        }
    }
    return conf_gen_push_case(g, "%r");
}

/* The f16/bf16 sweep: one case holding every bit pattern. */
bool conf_gen_exhaustive16(gen *g)
{
    int64_t n = 65536;
    const char *T = conf_gen_tys(g, g->t, 1, &n);
    plumb_tensor *x = conf_gen_param(g, "x", g->t, 1, &n, NULL, 0, 0);
    if (!x) return conf_gen_push_case(g, "%r");
    for (int64_t i = 0; i < n; i++) plumb_store_bits(g->t, x->data, (size_t)i, (uint64_t)i);
    const plumb_op_info *oi = plumb_op_get(g->op);
    if (conf_gen_pred_op(g->op)) {
        const char *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = %s %%x : (%s) -> %s\n", oi->name, T, I1);
        g->ret_types = I1;
    } else if (g->op == PLUMB_OP_REDUCE_PRECISION) {
        plumb_buf_printf(&g->body, "  %%r = stablehlo.reduce_precision %%x, format = e4m3 : %s\n", T);
        g->ret_types = T;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x : %s\n", oi->name, T);
        g->ret_types = T;
    }
    return conf_gen_push_case(g, "%r");
}

/* Binary float sweeps: specials × specials, specials × random (both
 * orders), and exponent-stratified random pairs. */
bool conf_gen_binary_sweep(gen *g, int which)
{
    plumb_dtype t = g->t;
    const plumb_dtype_info *di = plumb_dtype_get(t);
    uint64_t sp[32];
    uint32_t ns = conf_float_specials(t, sp);
    int64_t n = which == 0 ? (int64_t)ns * ns : which == 1 ? (int64_t)ns * 16 : 1024;
    const char *T = conf_gen_tys(g, t, 1, &n);
    plumb_tensor *x = conf_gen_param(g, "x", t, 1, &n, NULL, 0, 0);
    plumb_tensor *y = conf_gen_param(g, "y", t, 1, &n, NULL, 0, 0);
    if (!x || !y) return conf_gen_push_case(g, "%r");
    int emax = (1 << (di->exp_bits - 1)) - 1;
    int p = (int)di->mant_bits + 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t a, b;
        if (which == 0) { a = sp[i / ns]; b = sp[i % ns]; }
        else if (which == 1) {
            uint64_t r = conf_gen_fbits(t, gsl_ran_gaussian(g->rng, 4.0));
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
            a = conf_gen_fbits(t, ldexp(ma, ea) * (gsl_rng_uniform(g->rng) < 0.5 ? -1 : 1));
            b = conf_gen_fbits(t, ldexp(mb, eb) * (gsl_rng_uniform(g->rng) < 0.5 ? -1 : 1));
        }
        plumb_store_bits(t, x->data, (size_t)i, a);
        plumb_store_bits(t, y->data, (size_t)i, b);
    }
    if (g->op == PLUMB_OP_COMPARE) {
        const char *I1 = conf_gen_tys(g, PLUMB_I1, 1, &n);
        plumb_buf_printf(&g->body, "  %%r = stablehlo.compare %s, %%x, %%y, FLOAT : (%s, %s) -> %s\n",
                         conf_gen_cmp_dirs[which % 6 + 2], T, T, I1);
        g->ret_types = I1;
    } else {
        plumb_buf_printf(&g->body, "  %%r = %s %%x, %%y : %s\n", plumb_op_get(g->op)->name, T);
        g->ret_types = T;
    }
    return conf_gen_push_case(g, "%r");
}

