/* The program-level agreement oracle (conformance/oracle.h): whole-program
 * comparison with the reference and per-op localization on a backend's own
 * operands. `plumb run --compare`, plumb bench and `plumb fuzz` all go
 * through here, so the bounds a result is held to live in one place. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "plumb/checkcmp.h"
#include "plumb/fp8.h"
#include "plumb/ops.h"

/* What a value's computation contains, as bits. */
enum { CONE_ULP = 1, CONE_DATA = 2, CONE_OTHER = 4, CONE_DONE = 0x80 };

static bool body_only_selects(const ir_op *op)
{
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *b = op->regions[r].first; b; b = b->next)
            if (b->code != PLUMB_OP_MAXIMUM && b->code != PLUMB_OP_MINIMUM && b->code != PLUMB_OP_RETURN &&
                b->code != PLUMB_OP_COMPARE && b->code != PLUMB_OP_SELECT && b->code != PLUMB_OP_AND &&
                b->code != PLUMB_OP_OR)
                return false;
    return true;
}

static uint8_t op_class(const ir_op *op);

/* A region op the switch below does not bound itself (while, if, case,
 * map, sort, chlo.scan) computes with its bodies' ops: exact when every
 * one of them is, else composite, as a call is. */
static uint8_t regions_class(const ir_op *op)
{
    uint8_t c = 0;
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const ir_op *b = op->regions[r].first; b; b = b->next)
            c |= op_class(b);
    return c ? CONE_OTHER : 0;
}

/* True when op computes on complex numbers: a complex result or operand. */
static bool on_complex(const ir_op *op)
{
    for (uint32_t i = 0; i < op->n_results; i++)
        if (plumb_dtype_is_complex(op->results[i]->type.dtype))
            return true;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] && plumb_dtype_is_complex(op->operands[i]->type.dtype))
            return true;
    return false;
}

/* The agreement class of one op on its result types. */
static uint8_t op_class(const ir_op *op)
{
    bool flt = op->n_results && plumb_dtype_is_float(op->results[0]->type.dtype);
    /* On complex numbers, multiply, divide, the math ops, sums and dots are
     * bounded per component or normwise (docs/spec/complex.md, "runtime
     * bound"), which this per-element ULP judgement does not express: their
     * results are reported as composite, not judged bit-exact (a complex<f64>
     * multiply in Kahan's form is within 2u per component, not bitwise). The
     * table's exact ops (add, negate, select, convert, convolution, ...) stay
     * exact. */
    if (on_complex(op) && op->n_regions == 0 &&
        (op->code == PLUMB_OP_MULTIPLY || op->code == PLUMB_OP_DIVIDE || op->code == PLUMB_OP_DOT ||
         op->code == PLUMB_OP_DOT_GENERAL || plumb_op_get(op->code)->agree == PLUMB_AGREE_ULP))
        return CONE_OTHER;
    if (on_complex(op) && (op->code == PLUMB_OP_REDUCE || op->code == PLUMB_OP_REDUCE_WINDOW) &&
        !body_only_selects(op))
        return CONE_OTHER;
    switch (op->code) {
    case PLUMB_OP_CALL:
    case PLUMB_OP_COMPOSITE:   /* its decomposition's ops decide, as a callee's do */
    case PLUMB_OP_SCATTER:
    case PLUMB_OP_SELECT_AND_SCATTER:
        return CONE_OTHER;
    case PLUMB_OP_REDUCE:
    case PLUMB_OP_REDUCE_WINDOW:
        return flt && !body_only_selects(op) ? CONE_DATA : 0;
    case PLUMB_OP_DOT:
    case PLUMB_OP_DOT_GENERAL:
    case PLUMB_OP_CONVOLUTION:
    case PLUMB_OP_DYNAMIC_CONV:
        return flt ? CONE_DATA : 0;
    default:
        if (op->n_regions)
            return regions_class(op);
        return plumb_op_get(op->code)->agree == PLUMB_AGREE_ULP && flt ? CONE_ULP : 0;
    }
}

static uint8_t cone(const ir_value *v, uint8_t *memo, uint32_t n_ids)
{
    if (!v || v->id >= n_ids)
        return CONE_OTHER;
    if (memo[v->id] & CONE_DONE)
        return memo[v->id] & (uint8_t)~CONE_DONE;
    uint8_t c = 0;
    if (v->def) {
        c = op_class(v->def);
        for (uint32_t i = 0; i < v->def->n_operands; i++)
            c |= cone(v->def->operands[i], memo, n_ids);
    }
    memo[v->id] = c | CONE_DONE;
    return c;
}

/* True when every term below v is an input, a non-negative constant, or
 * moved/converted from them: then running the program on |inputs| gives
 * the sum of |terms| a reduction or dot over v adds up. */
static bool abs_passes_through(const ir_value *v, uint32_t depth)
{
    if (!v->def)
        return true;
    if (depth > 64)
        return false;
    const ir_op *op = v->def;
    if (op->code == PLUMB_OP_CONSTANT) {
        const plumb_tensor *t = op->a.value;
        if (!t)
            return false;
        uint64_t n = plumb_tensor_numel(t);
        for (uint64_t i = 0; i < n; i++)
            if (!(plumb_load_f64(t->dtype, t->data, (size_t)i) >= 0))
                return false;
        return true;
    }
    plumb_opcode c = op->code;
    bool moves = (plumb_op_get(c)->kind == PLUMB_KIND_MOVEMENT && c != PLUMB_OP_IOTA && c != PLUMB_OP_BITCAST_CONVERT) ||
                 c == PLUMB_OP_CONVERT;
    if (!moves)
        return false;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!abs_passes_through(op->operands[i], depth + 1))
            return false;
    return true;
}

/* The most elements dimension k of t can have: its size, else the bound of
 * a `?`; UINT64_MAX for an unbounded `?`, whose run-time size the program's
 * text does not tell. */
static uint64_t dim_at_most(const ir_type *t, uint32_t k)
{
    if (t->dims[k] != PLUMB_DIM_DYN)
        return (uint64_t)t->dims[k];
    return t->bounds[k] != PLUMB_NO_BOUND ? (uint64_t)t->bounds[k] : UINT64_MAX;
}

static uint64_t mul_terms(uint64_t n, uint64_t k)
{
    uint64_t r;
    return n == UINT64_MAX || k == UINT64_MAX || plumb_mul_overflow_u64(n, k, &r) ? UINT64_MAX : r;
}

/* Terms each element of a reduction or dot adds up (the reduce's init
 * counts as one), at most: a `?` dimension counts as its bound (the error
 * bound only grows with the count, so it stays sound); UINT64_MAX when an
 * unbounded `?` is summed over. */
static uint64_t n_terms(const ir_op *op)
{
    uint64_t n = 1;
    const ir_type *l = &op->operands[0]->type;
    if (op->code == PLUMB_OP_REDUCE) {
        for (uint32_t i = 0; i < op->a.dims.n; i++)
            n = mul_terms(n, dim_at_most(l, (uint32_t)op->a.dims.v[i]));
        return n == UINT64_MAX ? n : n + 1;
    }
    if (op->code == PLUMB_OP_REDUCE_WINDOW) {
        /* the window's positions plus the init */
        for (uint32_t i = 0; i < op->a.window_dims.n; i++)
            n = mul_terms(n, (uint64_t)op->a.window_dims.v[i]);
        return n == UINT64_MAX ? n : n + 1;
    }
    if (op->code == PLUMB_OP_DOT)
        return l->rank ? dim_at_most(l, l->rank - 1) : 1;
    for (uint32_t i = 0; i < op->a.lhs_contract.n; i++)
        n = mul_terms(n, dim_at_most(l, (uint32_t)op->a.lhs_contract.v[i]));
    return n;
}

static double unit_roundoff(plumb_dtype t) { return ldexp(1.0, -(int)plumb_dtype_get(t)->mant_bits - 1); }

typedef struct cmp_out {
    double fraction;   /* worst error / bound; INFINITY = exact op not bit-exact */
    bool bounded;      /* false: composite, reported only */
} cmp_out;

static bool elem_nan(plumb_dtype t, uint64_t b) { return plumb_dtype_is_float(t) && plumb_float_is_nan(t, b); }

/* What the compared results came from: the entry and its inputs (for the
 * inputs of an elementwise result) and the other backend's name. */
typedef struct cmp_ctx {
    const ir_func *f;
    plumb_tensor *const *ins;
    const char *other;
    FILE *out;
    bool json;
    char line[600];             /* the result's verdict line */
    char detail[720];           /* its first element outside the bound, or "": fits every part print_element writes */
} cmp_ctx;

/* One verdict line: printed at once as text, kept for the JSON object. */
static void say(cmp_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(cmp_ctx *cx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->line, sizeof cx->line, fmt, ap);
    va_end(ap);
    if (!cx->json)
        fputs(cx->line, cx->out);
    size_t n = strlen(cx->line);
    if (n && cx->line[n - 1] == '\n')
        cx->line[n - 1] = 0;
}

/* One failing element of result k: its index, got and want, and when v is
 * an elementwise op on the entry's parameters (or their broadcasts), the
 * inputs at that element. */
static void print_element(cmp_ctx *cx, uint32_t k, const ir_value *v, const plumb_tensor *want,
                          const plumb_tensor *got, uint64_t i)
{
    char where[8 * PLUMB_MAX_RANK + 8], g[64], w[64], in[400] = "";
    conf_describe_index(want, i, where, sizeof where);
    conf_describe_value(got->dtype, got->data, i, g, sizeof g);
    conf_describe_value(want->dtype, want->data, i, w, sizeof w);
    if (!conf_describe_op_inputs(cx->f, v, cx->ins, want, i, in, sizeof in))
        in[0] = 0;
    snprintf(cx->detail, sizeof cx->detail, "result %u at %s: got %s want %s%s%s", k, where, g, w,
             in[0] ? ", inputs " : "", in);
    if (!cx->json)
        fprintf(cx->out, "  %s\n", cx->detail);
}

/* Compares result k; prints one line, and one more naming the first
 * element outside the bound when there is one. */
static cmp_out compare_result(cmp_ctx *cx, uint32_t k, const ir_value *v, uint8_t *memo, uint32_t n_ids,
                              const plumb_tensor *want, const plumb_tensor *got, const plumb_tensor *abs_sum)
{
    cmp_out r = {0, true};
    plumb_buf tb;
    plumb_buf_init(&tb);
    plumb_tensor_type_print(&tb, want);
    const char *ts = tb.data && !tb.failed ? tb.data : "?";
    /* Shapes first: with `?` dimensions each backend decides its result's
     * shape at run time, and equal byte counts do not make equal shapes. */
    bool same_shape = want->rank == got->rank;
    for (uint32_t i = 0; same_shape && i < want->rank; i++)
        same_shape = want->dims[i] == got->dims[i];
    if (want->dtype != got->dtype || !same_shape || want->nbytes != got->nbytes) {
        plumb_buf gb;
        plumb_buf_init(&gb);
        plumb_tensor_type_print(&gb, got);
        say(cx, "result %u %s: MISMATCH: %s returned %s\n", k, ts, cx->other,
               gb.data && !gb.failed ? gb.data : "another type");
        plumb_buf_free(&gb);
        plumb_buf_free(&tb);
        r.fraction = INFINITY;
        return r;
    }
    uint64_t n = plumb_tensor_numel(want);
    plumb_dtype t = want->dtype;
    uint8_t c = cone(v, memo, n_ids);
    const ir_op *def = v->def;
    bool ops_exact = true;
    for (uint32_t i = 0; def && i < def->n_operands; i++)
        ops_exact &= cone(def->operands[i], memo, n_ids) == 0;
    uint64_t worst_ulp = 0, bad_at = UINT64_MAX;
    bool nan_mismatch = false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = plumb_load_bits(t, want->data, (size_t)i), b = plumb_load_bits(t, got->data, (size_t)i);
        if (a == b)
            continue;
        if (elem_nan(t, a) && elem_nan(t, b))
            continue;
        if (bad_at == UINT64_MAX)
            bad_at = i;
        if (!plumb_dtype_is_float(t) || elem_nan(t, a) || elem_nan(t, b)) {
            nan_mismatch = true;
            continue;
        }
        uint64_t u = plumb_ulp_distance(t, a, b);
        if (u > worst_ulp)
            worst_ulp = u;
    }
    if (c == 0) {
        if (bad_at == UINT64_MAX) {
            say(cx, "result %u %s: exact: bit-exact (0 of bound)\n", k, ts);
        } else {
            r.fraction = INFINITY;
            say(cx, "result %u %s: exact: MISMATCH at element %llu (bit-exact required)\n", k, ts,
                   (unsigned long long)bad_at);
            print_element(cx, k, v, want, got, bad_at);
        }
    } else if (c == CONE_ULP && def && (op_class(def) & CONE_ULP) && ops_exact) {
        uint32_t bound = plumb_op_ulp_bound(def->code, t);
        r.fraction = nan_mismatch ? INFINITY : bound ? (double)worst_ulp / bound : (worst_ulp ? INFINITY : 0);
        say(cx, "result %u %s: %s ulp(%u): worst %llu ULP, %.3g of bound%s\n", k, ts, plumb_op_name(def->code), bound,
               (unsigned long long)worst_ulp, r.fraction, r.fraction > 1 ? " EXCEEDS" : "");
        for (uint64_t i = 0; r.fraction > 1 && i < n; i++) {
            uint64_t a = plumb_load_bits(t, want->data, (size_t)i), b = plumb_load_bits(t, got->data, (size_t)i);
            if (a == b || (elem_nan(t, a) && elem_nan(t, b)))
                continue;
            if (elem_nan(t, a) || elem_nan(t, b) || plumb_ulp_distance(t, a, b) > bound) {
                print_element(cx, k, v, want, got, i);
                break;
            }
        }
    } else if (c == CONE_DATA && def && (op_class(def) & CONE_DATA) && abs_sum && abs_sum->dtype == t) {
        bool ok_cone = true;
        for (uint32_t i = 0; i < def->n_operands; i++)
            ok_cone &= abs_passes_through(def->operands[i], 0);
        if (ok_cone) {
            plumb_dtype acc = t == PLUMB_F64 ? PLUMB_F64 : PLUMB_F32;
            double u = unit_roundoff(acc), uo = unit_roundoff(t);
            uint64_t terms = n_terms(def);
            if (terms == UINT64_MAX)
                goto composite;   /* summed over an unbounded `?`: no stated bound */
            double nk = terms ? (double)(terms - 1) : 0;
            double gamma = nk * u < 1 ? nk * u / (1 - nk * u) : INFINITY;
            double worst = 0;
            uint64_t worst_at = 0;
            for (uint64_t i = 0; i < n; i++) {
                double a = plumb_load_f64(t, want->data, (size_t)i), b = plumb_load_f64(t, got->data, (size_t)i);
                if (a == b || (isnan(a) && isnan(b)))
                    continue;
                if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
                    if (worst < INFINITY)
                        worst_at = i;
                    worst = INFINITY;
                    continue;
                }
                double bound = gamma * plumb_load_f64(t, abs_sum->data, (size_t)i) + (u + uo) * fabs(a);
                double f = bound > 0 ? fabs(b - a) / bound : INFINITY;
                if (f > worst) {
                    worst = f;
                    worst_at = i;
                }
            }
            r.fraction = worst;
            say(cx, "result %u %s: %s bound(data): %.3g of bound%s\n", k, ts, plumb_op_name(def->code), worst,
                   worst > 1 ? " EXCEEDS" : "");
            if (worst > 1)
                print_element(cx, k, v, want, got, worst_at);
            plumb_buf_free(&tb);
            return r;
        }
        goto composite;
    } else {
    composite:
        r.bounded = false;
        if (bad_at == UINT64_MAX)
            say(cx, "result %u %s: composite: bit-identical to the reference\n", k, ts);
        else if (plumb_dtype_is_complex(t))
            say(cx, "result %u %s: composite: differs from the reference from element %llu (complex ops carry "
                   "per-component or normwise bounds, docs/spec/complex.md; the program's checks decide)\n", k, ts,
                   (unsigned long long)bad_at);
        else if (nan_mismatch)
            say(cx, "result %u %s: composite: NaN or integer mismatch at element %llu (no per-op bound; the "
                   "program's checks decide)\n", k, ts, (unsigned long long)bad_at);
        else
            say(cx, "result %u %s: composite: worst %llu ULP from the reference (no per-op bound; the program's "
                   "checks decide)\n", k, ts, (unsigned long long)worst_ulp);
    }
    plumb_buf_free(&tb);
    return r;
}

/* A fraction of the bound as JSON: a number, or null when infinite (an exact
 * op not bit-exact, a NaN where a number was due). */
static void json_fraction(FILE *out, double f)
{
    if (isfinite(f))
        fprintf(out, "%.6g", f);
    else
        fputs("null", out);
}

int conf_oracle_compare(const conf_oracle_out *o, const char *cmd, const ir_module *m, const ir_func *f,
                        plumb_tensor *const *ins, uint32_t n_ins, const plumb_ref_options *ro,
                        plumb_tensor *const *want, uint32_t n_want, plumb_tensor *const *got, uint32_t n_got,
                        double *worst)
{
    plumb_ref_result abs_res;
    memset(&abs_res, 0, sizeof abs_res);
    plumb_diag d = {.code = PLUMB_OK};
    if (worst)
        *worst = 0;
    /* Sums of |terms| for reductions and dots: the reference on |inputs|. */
    plumb_tensor **absin = n_ins ? plumb_calloc(n_ins, sizeof *absin) : NULL;
    bool have_abs = !n_ins || absin;
    for (uint32_t i = 0; have_abs && i < n_ins; i++) {
        if (!(absin[i] = plumb_tensor_clone(ins[i], &d))) {
            have_abs = false;
            break;
        }
        if (plumb_dtype_is_float(ins[i]->dtype)) {
            uint64_t sign = 1ull << (plumb_dtype_get(ins[i]->dtype)->bits - 1), cnt = plumb_tensor_numel(ins[i]);
            for (uint64_t j = 0; j < cnt; j++)
                plumb_store_bits(ins[i]->dtype, absin[i]->data, (size_t)j,
                                 plumb_load_bits(ins[i]->dtype, ins[i]->data, (size_t)j) & ~sign);
        }
    }
    FILE *null_log = tmpfile();
    plumb_ref_options ao = *ro;
    ao.check_log = null_log ? null_log : ro->check_log;
    plumb_diag ad = {.code = PLUMB_OK};
    if (have_abs)
        have_abs = plumb_ref_run(m, f->name, absin, n_ins, &ao, &abs_res, &ad);
    if (null_log)
        fclose(null_log);
    for (uint32_t i = 0; absin && i < n_ins; i++)
        plumb_tensor_free(absin[i]);
    plumb_free(absin, n_ins * sizeof *absin);

    uint32_t n_ids = m->next_value_id ? m->next_value_id : 1;
    uint8_t *memo = plumb_calloc(n_ids, 1);
    const ir_op *ret = f->body.last;
    int exceeded = 0;
    if (!memo || !ret || ret->n_operands != n_want || n_got != n_want) {
        fprintf(stderr, "plumb %s: error: cannot compare the results (out of memory or a malformed return)\n", cmd);
        exceeded = -1;
    }
    cmp_ctx cx = {.f = f, .ins = ins, .other = o->other, .out = o->out ? o->out : stdout, .json = o->json};
    for (uint32_t k = 0; exceeded >= 0 && k < n_want; k++) {
        cx.line[0] = cx.detail[0] = 0;
        cmp_out r = compare_result(&cx, k, ret->operands[k], memo, n_ids, want[k], got[k],
                                   have_abs && k < abs_res.n_outputs ? abs_res.outputs[k] : NULL);
        if (r.bounded && !(r.fraction <= 1))
            exceeded++;
        if (worst && r.bounded && !(r.fraction <= *worst))
            *worst = r.fraction;
        if (cx.json) {
            fprintf(cx.out, "{\"result\":%u,\"verdict\":\"%s\",\"fraction\":", k,
                    !r.bounded ? "composite" : r.fraction <= 1 ? "pass" : "fail");
            json_fraction(cx.out, r.fraction);
            fputs(",\"text\":", cx.out);
            plumb_json_str_fput(cx.out, cx.line);
            if (cx.detail[0]) {
                fputs(",\"element\":", cx.out);
                plumb_json_str_fput(cx.out, cx.detail);
            }
            fputs("}\n", cx.out);
        }
    }
    plumb_free(memo, n_ids);
    plumb_ref_result_free(&abs_res);
    return exceeded;
}

/* ---- one op on the backend's own operands --------------------------------------- */

bool conf_oracle_check_op(const conf_oracle_op *c, const conf_caps *caps, conf_result *r, plumb_diag *d)
{
    conf_case cs;
    memset(&cs, 0, sizeof cs);
    snprintf(cs.id, sizeof cs.id, "%s/%s/%s", plumb_op_short_name(c->op), plumb_dtype_name(c->dtype),
             c->id ? c->id : "op");
    cs.op = c->op;
    cs.dtype = c->dtype;
    cs.shape_class = "program";
    cs.value_class = "program";
    cs.program = (char *)c->program;
    cs.inputs = (plumb_tensor **)c->ins;
    cs.n_inputs = c->n_ins;
    conf_check_opts co;
    if (caps)
        conf_caps_check_opts(caps, c->dtype, &co);
    else {
        /* nothing declared: no flushing, NaN payloads kept, accumulation
         * in each type itself (the checker's strictest reading), but f32
         * for the FP8/FP6/FP4 formats, the plugin ABI's default: in the
         * format itself their bound is void (docs/abi.md, accum_small) */
        memset(&co, 0, sizeof co);
        co.preserves_nan_payload = true;
        for (int i = 0; i < PLUMB_DTYPE_COUNT; i++)
            co.accum[i] = plumb_dtype_is_small_float((plumb_dtype)i) ? PLUMB_F32 : (plumb_dtype)i;
    }
    return conf_check_case(&cs, c->got, c->n_got, &co, r, d);
}

plumb_dtype conf_oracle_primary(const ir_op *op)
{
    if ((op->code == PLUMB_OP_SELECT || op->code == PLUMB_OP_CLAMP) && op->n_operands > 1)
        return op->operands[1]->type.dtype;
    /* ops whose operands are only shapes or sizes: the result decides */
    if (op->code == PLUMB_OP_DYNAMIC_IOTA || !op->n_operands)
        return op->n_results ? op->results[0]->type.dtype : PLUMB_F32;
    /* rng_bit_generator's operand is a state: its output decides */
    if (op->code == PLUMB_OP_RNG_BIT_GENERATOR && op->n_results > 1)
        return op->results[1]->type.dtype;
    return op->operands[0]->type.dtype;
}

/* ---- localization ---------------------------------------------------------------- */

/* The text of op alone: @main taking one parameter per operand (of its
 * type) and returning op's results, op's attributes and regions shared
 * with the module it comes from (printed, never freed, through the copy).
 * Values get ids above every id of m so the shared regions' values keep
 * theirs. False when op reads a value from outside itself other than its
 * operands (a region capturing the enclosing function's values). */
static bool op_alone_text(const ir_module *m, const ir_op *op, plumb_buf *b)
{
    bool ok = false;
    ir_module *s = ir_module_new(NULL);
    if (!s)
        return false;
    s->next_value_id = m->next_value_id;
    ir_func *f = ir_func_new(s, "main", true);
    ir_value **args = op->n_operands ? plumb_calloc(op->n_operands, sizeof *args) : NULL;
    ir_type *rt = op->n_results ? plumb_calloc(op->n_results, sizeof *rt) : NULL;
    if (!f || (op->n_operands && !args) || (op->n_results && !rt))
        goto out;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!(args[i] = ir_block_add_arg(s, &f->body, &op->operands[i]->type)))
            goto out;
    for (uint32_t i = 0; i < op->n_results; i++)
        rt[i] = op->results[i]->type;
    ir_op *one = ir_op_new(s, op->code, args, op->n_operands, rt, op->n_results);
    if (!one)
        goto out;
    one->a = op->a;
    one->regions = op->regions;
    one->n_regions = op->n_regions;
    ir_block_append(&f->body, one);
    ir_op *ret = ir_op_new(s, PLUMB_OP_FUNC_RETURN, one->results, one->n_results, NULL, 0);
    if (!ret || !ir_func_set_results(s, f, rt, op->n_results))
        goto out;
    ir_block_append(&f->body, ret);
    ir_print(b, s);
    ok = !b->failed && b->data && !strstr(b->data, "%<unnamed>");
out:
    plumb_free(args, op->n_operands * sizeof *args);
    plumb_free(rt, op->n_results * sizeof *rt);
    ir_module_free(s);
    return ok;
}

/* Where op was written: "f.mlir:4:8" in the program, and its front end's
 * location ("chain.py:4:5", a name, or ""). */
static void op_where(const ir_module *m, const ir_op *op, char *pos, size_t pcap, char *loc, size_t lcap)
{
    pos[0] = loc[0] = 0;
    if (op->loc.line)
        snprintf(pos, pcap, "%s:%u:%u", m->filename ? m->filename : "line", op->loc.line, op->loc.col);
    const ir_debug_loc *l = &op->dloc;
    if (!ir_debug_loc_known(l))
        return;
    if (l->name && l->file)
        snprintf(loc, lcap, "%.200s at %.400s:%u:%u", l->name, l->file, l->line, l->col);
    else if (l->file)
        snprintf(loc, lcap, "%.400s:%u:%u", l->file, l->line, l->col);
    else
        snprintf(loc, lcap, "%.200s", l->name);
}

/* "op 1 %1 = stablehlo.sine at f.mlir:4:8 (from chain.py:4:5)". */
static void op_name(const ir_module *m, const ir_op *op, uint32_t ordinal, char *buf, size_t cap)
{
    char pos[300], loc[700], res[80] = "";
    op_where(m, op, pos, sizeof pos, loc, sizeof loc);
    if (op->n_results && op->results[0]->name)
        snprintf(res, sizeof res, "%%%.60s%s = ", op->results[0]->name, op->n_results > 1 ? ",..." : "");
    snprintf(buf, cap, "op %u %s%s%s%s%s%s%s", ordinal, res, plumb_op_name(op->code), pos[0] ? " at " : "", pos,
             loc[0] ? " (from " : "", loc, loc[0] ? ")" : "");
}

bool conf_oracle_localize(const conf_oracle_out *o, const ir_module *m, const ir_func *f,
                          plumb_tensor *const *ins, uint32_t n_ins, uint64_t max_bytes, const conf_caps *caps,
                          conf_oracle_run_fn run, void *ctx, conf_oracle_local *res, plumb_diag *d)
{
    memset(res, 0, sizeof *res);
    FILE *out = o->out ? o->out : stdout;
    bool ok = false;
    plumb_buf text;
    plumb_buf_init(&text);
    ir_module *cm = NULL;
    plumb_ref_result got;
    memset(&got, 0, sizeof got);
    const ir_op **ops = NULL, **orig = NULL;
    uint32_t *first_out = NULL, n_ops = 0, n_res = 0;
    ir_type *types = NULL;
    ir_value **vals = NULL;
    /* A copy of the module, its entry returning every op's results: the
     * backend's intermediates. The copy is re-parsed from the canonical
     * text, so the original (and its locations) stay as they are; its ops
     * are in the same order as f's. */
    ir_print(&text, m);
    if (text.failed || !text.data) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory printing the program");
        goto out;
    }
    ir_parse_options po = {sizeof po, 0, max_bytes};
    if (!(cm = ir_parse(text.data, text.len, m->filename, &po, d)))
        goto out;
    ir_func *cf = ir_module_find_func(cm, f->name);
    if (!cf || !cf->body.last || cf->body.last->code != PLUMB_OP_FUNC_RETURN) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "@%s has no body ending in a return", f->name);
        goto out;
    }
    for (const ir_op *op = cf->body.first; op && op->code != PLUMB_OP_FUNC_RETURN; op = op->next) {
        n_ops++;
        n_res += op->n_results;
    }
    ops = n_ops ? plumb_calloc(n_ops, sizeof *ops) : NULL;
    orig = n_ops ? plumb_calloc(n_ops, sizeof *orig) : NULL;
    first_out = n_ops ? plumb_calloc(n_ops, sizeof *first_out) : NULL;
    types = n_res ? plumb_calloc(n_res, sizeof *types) : NULL;
    vals = n_res ? plumb_calloc(n_res, sizeof *vals) : NULL;
    if ((n_ops && (!ops || !orig || !first_out)) || (n_res && (!types || !vals))) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory listing the ops");
        goto out;
    }
    uint32_t k = 0, r = 0;
    for (const ir_op *op = f->body.first; op && k < n_ops && op->code != PLUMB_OP_FUNC_RETURN; op = op->next)
        orig[k++] = op;
    if (k != n_ops) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0}, "the copy of @%s has another op count", f->name);
        goto out;
    }
    k = 0;
    for (const ir_op *op = cf->body.first; op && op->code != PLUMB_OP_FUNC_RETURN; op = op->next) {
        ops[k] = op;
        first_out[k++] = r;
        for (uint32_t i = 0; i < op->n_results; i++, r++) {
            vals[r] = op->results[i];
            types[r] = op->results[i]->type;
        }
    }
    ir_op *old = cf->body.last;
    ir_op *ret = ir_op_new(cm, PLUMB_OP_FUNC_RETURN, vals, n_res, NULL, 0);
    if (!ret || !ir_func_set_results(cm, cf, types, n_res)) {
        plumb_diag_set(d, PLUMB_ERR_NOMEM, (plumb_loc){0, 0}, "out of memory building the intermediates' return");
        goto out;
    }
    ir_block_remove(&cf->body, old);
    ir_block_append(&cf->body, ret);
    ir_verify_options vo = {sizeof vo, max_bytes};
    if (!ir_verify(cm, &vo, d))
        goto out;
    if (!run(ctx, cm, cf->name, ins, n_ins, &got, d))
        goto out;
    if (got.n_outputs != n_res) {
        plumb_diag_set(d, PLUMB_ERR_INVALID, (plumb_loc){0, 0},
                       "%s returned %u results for the %u intermediates of @%s", o->other, got.n_outputs, n_res,
                       f->name);
        goto out;
    }

    for (k = 0; k < n_ops; k++) {
        const ir_op *op = ops[k];
        if (op->code == PLUMB_OP_CONSTANT)
            continue;   /* nothing computed: its value is the program's */
        char name[1200], why[1100] = "";
        op_name(m, orig[k], k, name, sizeof name);
        plumb_dtype t = conf_oracle_primary(op);
        const char *verdict = "pass";
        double used = 0;
        plumb_buf one;
        plumb_buf_init(&one);
        plumb_tensor **oin = op->n_operands ? plumb_calloc(op->n_operands, sizeof *oin) : NULL;
        bool have = !op->n_operands || oin;
        /* each operand is the backend's own value: a parameter's input or
         * the result it returned for an earlier op */
        for (uint32_t i = 0; have && i < op->n_operands; i++) {
            const ir_value *v = op->operands[i];
            if (!v->def) {
                have = v->owner == &cf->body && v->index < n_ins;
                if (have)
                    oin[i] = ins[v->index];
                continue;
            }
            have = false;
            for (uint32_t j = 0; j < k; j++)
                if (ops[j] == v->def) {
                    oin[i] = got.outputs[first_out[j] + v->index];
                    have = true;
                }
        }
        bool call = op->code == PLUMB_OP_CALL || op->code == PLUMB_OP_COMPOSITE;
        if (call || !have || !op_alone_text(cm, op, &one)) {
            verdict = "unchecked";
            snprintf(why, sizeof why, "%s",
                     op->code == PLUMB_OP_CALL ? "a call: its callee's ops are not localized"
                     : call ? "a composite: its decomposition's ops are not localized"
                            : "it reads values other than its operands");
            res->unchecked++;
        } else {
            conf_oracle_op c = {op->code, t, one.data, oin, op->n_operands, &got.outputs[first_out[k]],
                                op->n_results, name};
            conf_result cr;
            plumb_diag cd;
            plumb_diag_clear(&cd);
            res->ops++;
            if (!conf_oracle_check_op(&c, caps, &cr, &cd)) {
                verdict = "unchecked";
                snprintf(why, sizeof why, "the checker could not run it alone: %.600s", cd.msg);
                res->ops--;
                res->unchecked++;
            } else {
                used = cr.budget_used;
                if (!cr.pass) {
                    verdict = "fail";
                    snprintf(why, sizeof why, "%s", cr.reason);
                    if (!res->failed++)
                        snprintf(res->first, sizeof res->first, "%.200s: %.300s", name, cr.reason);
                }
            }
        }
        if (o->json) {
            fprintf(out, "{\"op\":%u,\"name\":", k);
            plumb_json_str_fput(out, plumb_op_name(op->code));
            char pos[300], loc[700];
            op_where(m, orig[k], pos, sizeof pos, loc, sizeof loc);
            fputs(",\"at\":", out);
            plumb_json_str_fput(out, pos);
            fputs(",\"loc\":", out);
            plumb_json_str_fput(out, loc);
            fprintf(out, ",\"dtype\":\"%s\",\"verdict\":\"%s\",\"fraction\":", plumb_dtype_name(t), verdict);
            json_fraction(out, used);
            if (why[0]) {
                fputs(",\"reason\":", out);
                plumb_json_str_fput(out, why);
            }
            fputs("}\n", out);
        } else if (why[0])
            fprintf(out, "%s %s: %s: %s\n", name, plumb_dtype_name(t), strcmp(verdict, "fail") ? verdict : "FAIL",
                    why);
        else
            fprintf(out, "%s %s: pass (%.3g of bound)\n", name, plumb_dtype_name(t), used);
        plumb_free(oin, op->n_operands * sizeof *oin);
        plumb_buf_free(&one);
    }
    ok = true;
out:
    plumb_ref_result_free(&got);
    plumb_free(ops, n_ops * sizeof *ops);
    plumb_free(orig, n_ops * sizeof *orig);
    plumb_free(first_out, n_ops * sizeof *first_out);
    plumb_free(types, n_res * sizeof *types);
    plumb_free(vals, n_res * sizeof *vals);
    if (cm)
        ir_module_free(cm);
    plumb_buf_free(&text);
    return ok;
}
