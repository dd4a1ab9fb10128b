/* Checking a backend against the stored goldens (docs/golden.md): no MPFR,
 * only the stored correctly rounded values and the op table's bounds —
 * bit for bit for the exact class, ulp(n) for the ULP class, and for sums
 * and dots the data-dependent bound of docs/conformance.md built from
 * conformance/check.c's γ(k), unit roundoff and underflow terms with the
 * stored Σ|terms|. The backend runs through the plugin ABI
 * (conformance/plugin.c): in this process for ref and runtime, in a child
 * for a shared library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/checkcmp.h"
#include "golden_check.h"
#include "golden_internal.h"
#include "../conformance/json.h"

static uint64_t sign_mask(plumb_dtype t) { return 1ull << (plumb_dtype_get(t)->bits - 1); }
static uint64_t frac_mask(plumb_dtype t) { return (1ull << plumb_dtype_get(t)->mant_bits) - 1; }
static uint64_t exp_mask(plumb_dtype t)
{
    const plumb_dtype_info *i = plumb_dtype_get(t);
    return ((1ull << i->exp_bits) - 1) << i->mant_bits;
}
static bool is_nan(plumb_dtype t, uint64_t b) { return (b & exp_mask(t)) == exp_mask(t) && (b & frac_mask(t)); }
static bool is_inf(plumb_dtype t, uint64_t b) { return (b & exp_mask(t)) == exp_mask(t) && !(b & frac_mask(t)); }
static bool is_zero(plumb_dtype t, uint64_t b) { return (b & ~sign_mask(t)) == 0; }
static bool is_sub(plumb_dtype t, uint64_t b) { return (b & exp_mask(t)) == 0 && (b & frac_mask(t)); }
/* The checker's rule for ULP-class ops: these must match exactly. */
static bool is_special(plumb_dtype t, uint64_t b) { return is_nan(t, b) || is_inf(t, b) || is_zero(t, b) || is_sub(t, b); }

static double min_normal(plumb_dtype t)
{
    int bias = (1 << (plumb_dtype_get(t)->exp_bits - 1)) - 1;
    return ldexp(1.0, 1 - bias);
}

static void value(plumb_dtype t, uint64_t bits, char *buf, size_t cap)
{
    uint8_t tmp[8] = {0};
    plumb_store_bits(t, tmp, 0, bits);
    conf_describe_value(t, tmp, 0, buf, cap);
}

/* The program of an elementwise entry with an attribute or operands and
 * results of other types (docs/golden.md): compare, is_finite, select,
 * clamp, convert, reduce_precision. */
static void decided_program(plumb_buf *b, const plumb_golden_file *f)
{
    const char *T = plumb_dtype_name(f->dtype), *U = plumb_dtype_name(f->out_dtype);
    uint32_t n = f->count;
    switch (f->op) {
    case PLUMB_OP_COMPARE: {
        const char *total = strstr(f->attr, "_TOTALORDER");
        plumb_buf_printf(b, "func.func @main(%%x: tensor<%ux%s>, %%y: tensor<%ux%s>) -> (tensor<%uxi1>) {\n"
                         "  %%r = stablehlo.compare %.2s, %%x, %%y, %s : (tensor<%ux%s>, tensor<%ux%s>) -> tensor<%uxi1>\n",
                         n, T, n, T, n, f->attr, total ? "TOTALORDER" : "FLOAT", n, T, n, T, n);
        break;
    }
    case PLUMB_OP_IS_FINITE: case PLUMB_OP_IS_INF: case PLUMB_OP_IS_POS_INF: case PLUMB_OP_IS_NEG_INF:
        plumb_buf_printf(b, "func.func @main(%%x: tensor<%ux%s>) -> (tensor<%uxi1>) {\n"
                         "  %%r = %s %%x : (tensor<%ux%s>) -> tensor<%uxi1>\n", n, T, n, f->op_name, n, T, n);
        break;
    case PLUMB_OP_SELECT:
        plumb_buf_printf(b, "func.func @main(%%p: tensor<%uxi1>, %%x: tensor<%ux%s>, %%y: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.select %%p, %%x, %%y : tensor<%uxi1>, tensor<%ux%s>\n",
                         n, n, T, n, T, n, T, n, n, T);
        break;
    case PLUMB_OP_CLAMP:
        plumb_buf_printf(b, "func.func @main(%%lo: tensor<%ux%s>, %%x: tensor<%ux%s>, %%hi: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.clamp %%lo, %%x, %%hi : tensor<%ux%s>\n", n, T, n, T, n, T, n, T, n, T);
        break;
    case PLUMB_OP_CONVERT:
        plumb_buf_printf(b, "func.func @main(%%x: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.convert %%x : (tensor<%ux%s>) -> tensor<%ux%s>\n", n, T, n, U, n, T, n, U);
        break;
    default:    /* reduce_precision */
        plumb_buf_printf(b, "func.func @main(%%x: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.reduce_precision %%x, format = %s : tensor<%ux%s>\n", n, T, n, T, f->attr, n, T);
        break;
    }
    plumb_buf_printf(b, "  return %%r : tensor<%ux%s>\n}\n", n, U);
}

/* How many elements a file's program returns: one per record, except
 * stablehlo.dot and dot_general "nobatch", which return every row of x
 * times every column of y (the record's result is on the diagonal). */
static uint64_t result_count(const plumb_golden_file *f)
{
    bool square = f->kind == PLUMB_GOLDEN_DOT && (f->op == PLUMB_OP_DOT || !strcmp(f->attr, "nobatch"));
    return square ? (uint64_t)f->count * f->count : f->count;
}

static uint64_t result_index(const plumb_golden_file *f, uint32_t r)
{
    return result_count(f) == f->count ? r : (uint64_t)r * f->count + r;
}

/* The program of a file: every record in one call. */
static char *program_text(const plumb_golden_file *f, size_t *len)
{
    const char *T = plumb_dtype_name(f->dtype);
    plumb_buf b;
    plumb_buf_init(&b);
    uint32_t n = f->count;
    if (f->kind == PLUMB_GOLDEN_ELEMENTWISE && (f->attr[0] || f->n_in == 3 || f->out_dtype != f->dtype ||
                                                f->op == PLUMB_OP_IS_FINITE)) {
        decided_program(&b, f);
    } else if (f->kind == PLUMB_GOLDEN_ELEMENTWISE) {
        if (f->n_in == 1)
            plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                             "  %%r = %s %%x : tensor<%ux%s>\n", n, T, n, T, f->op_name, n, T);
        else
            plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%s>, %%y: tensor<%ux%s>) -> (tensor<%ux%s>) {\n"
                             "  %%r = %s %%x, %%y : tensor<%ux%s>\n", n, T, n, T, n, T, f->op_name, n, T);
        plumb_buf_printf(&b, "  return %%r : tensor<%ux%s>\n}\n", n, T);
    } else if (f->kind == PLUMB_GOLDEN_SUM) {
        uint32_t L = f->n_in;
        const char *body = f->attr[0] ? f->attr : "add";
        plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%ux%s>, %%c: tensor<%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.reduce(%%x init: %%c) applies stablehlo.%s across dimensions = [1] : "
                         "(tensor<%ux%ux%s>, tensor<%s>) -> tensor<%ux%s>\n  return %%r : tensor<%ux%s>\n}\n",
                         n, L, T, T, n, T, body, n, L, T, T, n, T, n, T);
    } else if (f->op == PLUMB_OP_DOT || !strcmp(f->attr, "nobatch")) {
        /* x is n x L, y is L x n (y's rows given transposed): n x n products */
        uint32_t L = f->n_in / 2;
        const char *how = f->op == PLUMB_OP_DOT ? "stablehlo.dot %x, %y"
                                                : "stablehlo.dot_general %x, %y, contracting_dims = [1] x [0]";
        plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%ux%s>, %%y: tensor<%ux%ux%s>) -> (tensor<%ux%ux%s>) {\n"
                         "  %%r = %s : (tensor<%ux%ux%s>, tensor<%ux%ux%s>) -> tensor<%ux%ux%s>\n"
                         "  return %%r : tensor<%ux%ux%s>\n}\n",
                         n, L, T, L, n, T, n, n, T, how, n, L, T, L, n, T, n, n, T, n, n, T);
    } else if (!strcmp(f->attr, "contract0")) {
        /* both operands L x n: contracting dimension 0, batching dimension 1 */
        uint32_t L = f->n_in / 2;
        plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%ux%s>, %%y: tensor<%ux%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.dot_general %%x, %%y, batching_dims = [1] x [1], contracting_dims = [0] x [0] : "
                         "(tensor<%ux%ux%s>, tensor<%ux%ux%s>) -> tensor<%ux%s>\n  return %%r : tensor<%ux%s>\n}\n",
                         L, n, T, L, n, T, n, T, L, n, T, L, n, T, n, T, n, T);
    } else {
        uint32_t L = f->n_in / 2;
        plumb_buf_printf(&b, "func.func @main(%%x: tensor<%ux%ux%s>, %%y: tensor<%ux%ux%s>) -> (tensor<%ux%s>) {\n"
                         "  %%r = stablehlo.dot_general %%x, %%y, batching_dims = [0] x [0], contracting_dims = [1] x [1] : "
                         "(tensor<%ux%ux%s>, tensor<%ux%ux%s>) -> tensor<%ux%s>\n  return %%r : tensor<%ux%s>\n}\n",
                         n, L, T, n, L, T, n, T, n, L, T, n, L, T, n, T, n, T);
    }
    if (b.failed) { plumb_buf_free(&b); return NULL; }
    return plumb_buf_take(&b, len);
}

/* The input tensors of a file (x [, y or the init value]). */
static bool make_inputs(const plumb_golden_file *f, plumb_tensor **in, uint32_t *n_in, plumb_diag *d)
{
    plumb_dtype t = f->dtype;
    int64_t n = f->count;
    *n_in = 0;
    if (f->kind == PLUMB_GOLDEN_ELEMENTWISE) {
        for (uint32_t k = 0; k < f->n_in; k++) {
            plumb_dtype tk = golden_in_dtype(f->op, t, k);
            in[k] = plumb_tensor_new(tk, 1, &n, 0, d);
            if (!in[k]) return false;
            (*n_in)++;
            for (uint32_t r = 0; r < f->count; r++) plumb_store_bits(tk, in[k]->data, r, plumb_golden_elem(f, r, k));
        }
        return true;
    }
    uint32_t L = f->kind == PLUMB_GOLDEN_DOT ? f->n_in / 2 : f->n_in;
    for (uint32_t k = 0; k < (f->kind == PLUMB_GOLDEN_DOT ? 2u : 1u); k++) {
        /* transposed (L x n, element [i][r] = term i of record r): both
         * operands of contract0, y of stablehlo.dot and of nobatch */
        bool tr = f->kind == PLUMB_GOLDEN_DOT &&
                  (!strcmp(f->attr, "contract0") || (k == 1 && (f->op == PLUMB_OP_DOT || !strcmp(f->attr, "nobatch"))));
        int64_t dims[2] = {tr ? (int64_t)L : n, tr ? n : (int64_t)L};
        in[k] = plumb_tensor_new(t, 2, dims, 0, d);
        if (!in[k]) return false;
        (*n_in)++;
        for (uint32_t r = 0; r < f->count; r++)
            for (uint32_t i = 0; i < L; i++)
                plumb_store_bits(t, in[k]->data, tr ? (size_t)i * f->count + r : (size_t)r * L + i,
                                 plumb_golden_elem(f, r, k * L + i));
    }
    if (f->kind == PLUMB_GOLDEN_SUM) {
        /* init: +0 for a sum, as the generator assumed; the identity of a
         * maximum (-inf) or minimum (+inf) body */
        in[1] = plumb_tensor_new(t, 0, NULL, 0, d);
        if (!in[1]) return false;
        (*n_in)++;
        if (golden_sum_exact(f->attr))
            plumb_store_bits(t, in[1]->data, 0, exp_mask(t) | (!strcmp(f->attr, "maximum") ? sign_mask(t) : 0));
    }
    return true;
}

/* Inputs of record r, for messages. */
static void record_inputs(const plumb_golden_file *f, uint32_t r, char *buf, size_t cap)
{
    if (f->kind != PLUMB_GOLDEN_ELEMENTWISE) {
        snprintf(buf, cap, "row %u (%u %s)", r, f->kind == PLUMB_GOLDEN_DOT ? f->n_in / 2 : f->n_in,
                 f->kind == PLUMB_GOLDEN_DOT ? "products" : "terms");
        return;
    }
    char a[64], b[64], c[64];
    if (f->n_in == 3) {
        bool sel = f->op == PLUMB_OP_SELECT;
        value(golden_in_dtype(f->op, f->dtype, 0), plumb_golden_elem(f, r, 0), a, sizeof a);
        value(f->dtype, plumb_golden_elem(f, r, 1), b, sizeof b);
        value(f->dtype, plumb_golden_elem(f, r, 2), c, sizeof c);
        int k = snprintf(buf, cap, "%s=%s, ", sel ? "pred" : "min", a);
        if (k < 0 || (size_t)k >= cap) return;
        int k2 = snprintf(buf + k, cap - (size_t)k, "%s=%s, ", sel ? "on_true" : "x", b);
        if (k2 < 0 || (size_t)(k + k2) >= cap) return;
        snprintf(buf + k + k2, cap - (size_t)(k + k2), "%s=%s", sel ? "on_false" : "max", c);
        return;
    }
    value(f->dtype, plumb_golden_elem(f, r, 0), a, sizeof a);
    if (f->n_in == 1) { snprintf(buf, cap, "x=%s", a); return; }
    value(f->dtype, plumb_golden_elem(f, r, 1), b, sizeof b);
    snprintf(buf, cap, "x=%s, y=%s", a, b);
}

bool golden_check_file(conf_backend *b, const char *spec, const plumb_golden_file *f, const char *file,
                       golden_result *r, plumb_diag *d)
{
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file);
    r->op = f->op;
    r->dtype = f->dtype;
    r->kind = f->kind;
    snprintf(r->attr, sizeof r->attr, "%s", f->attr);
    r->length = f->kind == PLUMB_GOLDEN_DOT ? f->n_in / 2 : f->kind == PLUMB_GOLDEN_SUM ? f->n_in : 0;
    r->cases = f->count;
    plumb_dtype t = f->dtype;
    if (!(b->caps.claims[f->op] & PLUMB_TY_BIT(t))) {
        r->skipped = true;
        return true;
    }
    size_t plen = 0;
    char *prog = program_text(f, &plen);
    plumb_tensor *in[3] = {NULL, NULL, NULL}, **outs = NULL;
    uint32_t n_in = 0, n_outs = 0;
    double *budgets = NULL;
    bool ok = false;
    if (!prog) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
    plumb_diag rd;
    memset(&rd, 0, sizeof rd);
    if (!make_inputs(f, in, &n_in, d)) goto out;
    bool ran = conf_backend_is_path(spec)
                   ? conf_backend_run_isolated(spec, NULL, 0, prog, "main", in, n_in, 120.0, 0, &outs, &n_outs, &rd)
                   : conf_backend_run(b, prog, in, n_in, &outs, &n_outs, &rd);
    plumb_dtype ot = f->out_dtype;
    if (!ran || n_outs != 1 || outs[0]->dtype != ot || plumb_tensor_numel(outs[0]) != result_count(f)) {
        r->errored = true;
        snprintf(r->error, sizeof r->error, "%s", !ran ? rd.msg : "the backend returned results of another type");
        r->failed = r->cases;
        /* nothing was measured: every record counts as over its bound */
        r->budgets = plumb_calloc(f->count ? f->count : 1, sizeof *r->budgets);
        if (!r->budgets) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
        for (uint32_t i = 0; i < f->count; i++) r->budgets[i] = CONF_BUDGET_MISMATCH;
        conf_budget_hist_fill(r->budgets, f->count, &r->hist);
        r->worst = r->p50 = r->p90 = r->p99 = CONF_BUDGET_MISMATCH;
        ok = true;
        goto out;
    }
    budgets = plumb_calloc(f->count ? f->count : 1, sizeof *budgets);
    if (!budgets) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
    conf_check_opts o;
    conf_caps_check_opts(&b->caps, t, &o);
    uint32_t bound_ulp = plumb_op_ulp_bound(f->op, t);
    bool exact = golden_op_exact(f->op);
    bool float_out = plumb_dtype_is_float(ot);
    conf_check_opts oo;         /* flush-to-zero is declared per type: the result's */
    conf_caps_check_opts(&b->caps, ot, &oo);
    double worst_fail = -1;
    for (uint32_t i = 0; i < f->count; i++) {
        uint64_t want = plumb_golden_elem(f, i, f->n_in), got = plumb_load_bits(ot, outs[0]->data, result_index(f, i));
        double budget = 0;
        char what[200] = "";
        bool ftz = float_out && oo.flushes_subnormals && is_sub(ot, want) && is_zero(ot, got) &&
                   (got & sign_mask(ot)) == (want & sign_mask(ot));
        if (got == want || (float_out && is_nan(ot, got) && is_nan(ot, want)) || ftz) {
            budget = 0;
        } else if (f->kind == PLUMB_GOLDEN_SUM && golden_sum_exact(f->attr)) {
            budget = CONF_BUDGET_MISMATCH;
            snprintf(what, sizeof what, "a %s body picks an element: must match bit for bit", f->attr);
        } else if (f->kind == PLUMB_GOLDEN_ELEMENTWISE) {
            if (exact) {
                budget = CONF_BUDGET_MISMATCH;
                snprintf(what, sizeof what, "exact class: must match bit for bit");
            } else if (is_special(t, got) || is_special(t, want)) {
                budget = CONF_BUDGET_MISMATCH;
                snprintf(what, sizeof what, "special value (NaN, infinity, zero or subnormal) must match exactly");
            } else {
                uint64_t dist = plumb_ulp_distance(t, got, want);
                budget = bound_ulp ? (double)dist / bound_ulp : CONF_BUDGET_MISMATCH;
                snprintf(what, sizeof what, "error %llu ulp, bound %u ulp", (unsigned long long)dist, bound_ulp);
            }
        } else if (is_nan(t, got) || is_nan(t, want) || is_inf(t, got) || is_inf(t, want)) {
            budget = CONF_BUDGET_MISMATCH;
            snprintf(what, sizeof what, "NaN or infinity must match exactly (the rows' finite terms cannot overflow)");
        } else {
            /* docs/conformance.md's DATA bound: γ(k)·Σ|terms| + c·(u_out·|want| + η_out) + k_mul·η_acc·(1 + γ) */
            uint64_t k = r->length, k_mul = f->kind == PLUMB_GOLDEN_DOT ? r->length : 0;
            plumb_dtype acc = plumb_dtype_is_float(o.accum[t]) ? o.accum[t] : t;
            double ua = conf_unit_roundoff(acc), uo = conf_unit_roundoff(t), gam = conf_gamma(k, ua);
            double c = ua < uo ? 2.0 : 1.0;
            double slack = o.flushes_subnormals
                               ? (double)(2 * k + 2) * fmax(min_normal(acc), min_normal(t)) : 0.0;
            double A = fabs(plumb_load_f64(t, f->data + PLUMB_GOLDEN_HEADER_SIZE,
                                           (size_t)i * (f->n_in + f->n_out) + f->n_in + 1));
            double wv = plumb_load_f64(t, f->data + PLUMB_GOLDEN_HEADER_SIZE, (size_t)i * (f->n_in + f->n_out) + f->n_in);
            double gv = plumb_load_f64(t, outs[0]->data, result_index(f, i));
            double bound = gam * A + c * uo * fabs(wv) + c * conf_underflow_eta(t) +
                           (double)k_mul * conf_underflow_eta(acc) * (1.0 + gam) + slack;
            double err = fabs(gv - wv);
            /* a NaN error (no finite difference) can never pass */
            budget = bound > 0 && !isnan(bound) && !isnan(err) ? err / bound : CONF_BUDGET_MISMATCH;
            snprintf(what, sizeof what, "error %.3g, bound %.3g = γ(%llu)·Σ|x| (Σ|x| = %.6g, accumulator %s) + %g·u_out·|want| + underflow",
                     err, bound, (unsigned long long)k, A, plumb_dtype_name(acc), c);
        }
        budgets[i] = budget;
        if (budget > 1.0) {
            r->failed++;
            if (budget > worst_fail) {
                worst_fail = budget;
                char ins[200], g[64], w[64];
                record_inputs(f, i, ins, sizeof ins);
                value(ot, got, g, sizeof g);
                value(ot, want, w, sizeof w);
                char entry[80];
                if (f->op == PLUMB_OP_CONVERT)
                    snprintf(entry, sizeof entry, "%s %s -> %s", f->op_name, plumb_dtype_name(t), f->attr);
                else
                    snprintf(entry, sizeof entry, "%s%s%s %s", f->op_name, f->attr[0] ? " " : "", f->attr,
                             plumb_dtype_name(t));
                snprintf(r->failure, sizeof r->failure, "%s record %u: %s: got %s, want %s; %s", entry, i, ins, g, w,
                         what);
            }
        } else {
            r->passed++;
        }
    }
    conf_budget_hist_fill(budgets, f->count, &r->hist);     /* sorts budgets */
    r->worst = r->hist.worst;
    r->p50 = r->hist.p50;
    r->p90 = r->hist.p90;
    r->p99 = r->hist.p99;
    r->budgets = budgets;       /* the result keeps them */
    budgets = NULL;
    ok = true;
out:
    if (budgets) plumb_free(budgets, (f->count ? f->count : 1) * sizeof *budgets);
    if (outs) conf_tensors_free(outs, n_outs);
    for (uint32_t k = 0; k < n_in; k++) plumb_tensor_free(in[k]);
    if (prog) plumb_free(prog, plen + 1);
    return ok;
}

void golden_result_free(golden_result *r)
{
    if (r->budgets) plumb_free(r->budgets, (r->cases ? r->cases : 1) * sizeof *r->budgets);
    r->budgets = NULL;
}

static bool same_entry(const golden_result *r, plumb_opcode op, plumb_dtype t, const char *attr)
{
    return r->budgets && r->op == op && r->dtype == t && !strcmp(r->attr, attr);
}

bool golden_op_hist(const golden_result *rs, uint32_t n, plumb_opcode op, plumb_dtype t, const char *attr,
                    conf_budget_hist *h)
{
    memset(h, 0, sizeof *h);
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (same_entry(&rs[i], op, t, attr)) total += rs[i].cases;
    if (!total) return true;
    double *v = plumb_calloc(total, sizeof *v);
    if (!v) return false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (same_entry(&rs[i], op, t, attr)) {
            memcpy(v + k, rs[i].budgets, rs[i].cases * sizeof *v);
            k += rs[i].cases;
        }
    conf_budget_hist_fill(v, total, h);
    plumb_free(v, total * sizeof *v);
    return true;
}

/* ---- the ratchet's baselines ------------------------------------------------------------- */

void golden_suite_name(const plumb_golden_manifest *m, char *buf, size_t cap)
{
    snprintf(buf, cap, "golden-v%u-%08x", PLUMB_GOLDEN_VERSION, m->crc);
}

static bool bl_bad(plumb_diag *d, const char *path, const char *why)
{
    plumb_diag_set(d, PLUMB_ERR_PARSE, (plumb_loc){0, 0}, "%s: %s", path, why);
    return false;
}

static bool num(const conf_json *o, const char *key, double *out)
{
    const conf_json *v = conf_json_get(o, key);
    if (!v || v->type != CONF_JSON_NUMBER) return false;
    *out = v->number;
    return true;
}

bool golden_baseline_load(const char *path, golden_baseline *bl, plumb_diag *d)
{
    memset(bl, 0, sizeof *bl);
    conf_json_doc doc;
    if (!conf_json_load(path, 0, &doc, d)) return false;
    bool ok = false;
    const conf_json *root = doc.root, *ver = conf_json_get(root, "plumb_golden_baseline");
    const conf_json *be = conf_json_get(root, "backend"), *su = conf_json_get(root, "suite");
    const conf_json *en = conf_json_get(root, "entries");
    if (!ver || ver->type != CONF_JSON_NUMBER || ver->number != 1) {
        bl_bad(d, path, "not a golden baseline (no \"plumb_golden_baseline\": 1)");
        goto out;
    }
    if (!be || be->type != CONF_JSON_STRING || !su || su->type != CONF_JSON_STRING || !en ||
        en->type != CONF_JSON_ARRAY) {
        bl_bad(d, path, "needs \"backend\" and \"suite\" strings and an \"entries\" array");
        goto out;
    }
    snprintf(bl->backend, sizeof bl->backend, "%s", be->string);
    snprintf(bl->suite, sizeof bl->suite, "%s", su->string);
    bl->v = plumb_calloc(en->n ? en->n : 1, sizeof *bl->v);
    if (!bl->v) { plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory"); goto out; }
    for (uint32_t i = 0; i < en->n; i++) {
        const conf_json *e = &en->items[i], *fn = conf_json_get(e, "file");
        golden_baseline_entry *b = &bl->v[i];
        if (!fn || fn->type != CONF_JSON_STRING || !num(e, "worst", &b->worst) || !num(e, "p50", &b->p50) ||
            !num(e, "p90", &b->p90) || !num(e, "p99", &b->p99)) {
            char why[160];
            snprintf(why, sizeof why, "entry %u needs \"file\", \"worst\", \"p50\", \"p90\" and \"p99\"", i);
            bl_bad(d, path, why);
            goto out;
        }
        snprintf(b->file, sizeof b->file, "%s", fn->string);
        bl->n++;
    }
    ok = true;
out:
    conf_json_free(&doc);
    if (!ok) golden_baseline_free(bl);
    return ok;
}

void golden_baseline_free(golden_baseline *bl)
{
    if (bl->v) plumb_free(bl->v, (bl->n ? bl->n : 1) * sizeof *bl->v);
    memset(bl, 0, sizeof *bl);
}

char *golden_baseline_text(const char *backend, const char *suite, const golden_result *rs, uint32_t n, size_t *len)
{
    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_printf(&b, "{\n  \"plumb_golden_baseline\": 1,\n  \"backend\": \"%s\",\n  \"suite\": \"%s\",\n  \"entries\": [",
                     backend, suite);
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        if (rs[i].skipped) continue;
        /* %.17g: the figures read back exactly, so the ratchet needs no margin */
        plumb_buf_printf(&b, "%s\n    {\"file\": \"%s\", \"worst\": %.17g, \"p50\": %.17g, \"p90\": %.17g, \"p99\": %.17g}",
                         first ? "" : ",", rs[i].file, rs[i].worst, rs[i].p50, rs[i].p90, rs[i].p99);
        first = false;
    }
    plumb_buf_printf(&b, "\n  ]\n}\n");
    if (b.failed) { plumb_buf_free(&b); return NULL; }
    return plumb_buf_take(&b, len);
}
