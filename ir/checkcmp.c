/* The element comparisons and the report of failing checks, shared by the
 * reference's (ref/check.c) and the runtime's (runtime/k_check.c) check
 * kernels: see include/plumb/checkcmp.h and docs/spec/checks.md. A failing
 * check is described naming the op and its location, the first
 * mismatching elements (multi-dimensional index, got and expected in
 * decimal and hex, ULP distance for floats) and how many elements differ. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "plumb/checkcmp.h"

/* ---- element comparisons ----------------------------------------------------- */

static uint64_t sign_bit(plumb_dtype t) { return 1ull << (plumb_dtype_get(t)->bits - 1); }
static uint64_t exp_mask(plumb_dtype t)
{
    const plumb_dtype_info *i = plumb_dtype_get(t);
    return ((1ull << i->exp_bits) - 1) << i->mant_bits;
}
static uint64_t mant_mask(plumb_dtype t) { return (1ull << plumb_dtype_get(t)->mant_bits) - 1; }

bool plumb_float_is_nan(plumb_dtype t, uint64_t bits)
{
    if (plumb_fpfmt_get(t))   /* FN/FNUZ/E8M0 spend fewer codes on NaN */
        return plumb_small_is_nan(plumb_fpfmt_get(t), (uint32_t)bits);
    return (bits & exp_mask(t)) == exp_mask(t) && (bits & mant_mask(t)) != 0;
}

static bool is_inf(plumb_dtype t, uint64_t bits)
{
    if (plumb_fpfmt_get(t))
        return plumb_small_is_inf(plumb_fpfmt_get(t), (uint32_t)bits);
    return (bits & exp_mask(t)) == exp_mask(t) && (bits & mant_mask(t)) == 0;
}

/* ULP distance on the ordered integer line: a float's magnitude bits,
 * negated for negative values, so that consecutive floats are 1 apart, -0
 * and +0 coincide, the smallest subnormals sit 1 from zero on either side,
 * and +inf is 1 above the largest finite value. NaNs have no place on the
 * line; callers handle them first. */
uint64_t plumb_ulp_distance(plumb_dtype t, uint64_t a, uint64_t b)
{
    if (t == PLUMB_F8E8M0FNU)   /* no sign bit: the patterns are the line */
        return a > b ? a - b : b - a;
    uint64_t s = sign_bit(t);
    uint64_t ma = a & (s - 1), mb = b & (s - 1);
    bool na = (a & s) != 0, nb = (b & s) != 0;
    if (na == nb)
        return ma > mb ? ma - mb : mb - ma;
    return ma + mb;   /* opposite sides of zero; at most 2^64 - 2 */
}

/* expect_eq: bitwise, except that every NaN equals every NaN. */
static bool eq_elem(plumb_dtype t, uint64_t got, uint64_t want)
{
    if (plumb_dtype_is_float(t) && plumb_float_is_nan(t, got) && plumb_float_is_nan(t, want))
        return true;
    if (t == PLUMB_I1)
        return (got != 0) == (want != 0);
    return got == want;
}

/* expect_almost_eq on one element, as StableHLO's interpreter defines it:
 * equal values pass (so -0 and +0); NaN matches only NaN; an infinity
 * matches only the same infinity; values of opposite signs fail; otherwise
 * |got - expected|, computed in double, must not exceed the tolerance. */
bool plumb_almost_eq(plumb_dtype t, uint64_t got, uint64_t want, double tolerance)
{
    if (!plumb_dtype_is_float(t))
        return eq_elem(t, got, want);
    bool ng = plumb_float_is_nan(t, got), nw = plumb_float_is_nan(t, want);
    if (ng || nw)
        return ng && nw;
    unsigned char buf[16];
    plumb_store_bits(t, buf, 0, got);
    plumb_store_bits(t, buf, 1, want);
    double g = plumb_load_f64(t, buf, 0), w = plumb_load_f64(t, buf, 1);
    if (g == w)
        return true;
    if (is_inf(t, got) || is_inf(t, want))
        return false;
    if (signbit(g) != signbit(w))
        return false;
    return fabs(g - w) <= tolerance;
}

/* ---- reporting ----------------------------------------------------------------- */

static void put_value(plumb_buf *b, plumb_dtype t, uint64_t bits)
{
    int hexw = (int)((plumb_dtype_get(t)->bits + 3) / 4);
    switch (plumb_dtype_get(t)->cls) {
    case PLUMB_DC_BOOL:
        plumb_buf_printf(b, "%s (0x%llX)", bits ? "true" : "false", (unsigned long long)bits);
        return;
    case PLUMB_DC_SINT: {
        uint32_t w = plumb_dtype_get(t)->bits;
        int64_t v = w == 64 ? (int64_t)bits : (int64_t)(bits << (64 - w)) >> (64 - w);
        plumb_buf_printf(b, "%lld (0x%0*llX)", (long long)v, hexw, (unsigned long long)bits);
        return;
    }
    case PLUMB_DC_UINT:
        plumb_buf_printf(b, "%llu (0x%0*llX)", (unsigned long long)bits, hexw, (unsigned long long)bits);
        return;
    case PLUMB_DC_FLOAT:
        if (plumb_float_is_nan(t, bits))
            plumb_buf_puts(b, bits & sign_bit(t) ? "-nan" : "nan");
        else if (is_inf(t, bits))
            plumb_buf_puts(b, bits & sign_bit(t) ? "-inf" : "inf");
        else
            plumb_float_print(b, t, bits);
        plumb_buf_printf(b, " (0x%0*llX)", hexw, (unsigned long long)bits);
        return;
    case PLUMB_DC_COMPLEX:   /* callers print complex elements per component */
        plumb_buf_printf(b, "0x%llX", (unsigned long long)bits);
        return;
    }
}

static void put_index(plumb_buf *b, const plumb_tensor *t, uint64_t lin)
{
    int64_t idx[PLUMB_MAX_RANK];
    for (uint32_t i = t->rank; i-- > 0;) {
        uint64_t d = (uint64_t)t->dims[i];
        idx[i] = d ? (int64_t)(lin % d) : 0;
        lin = d ? lin / d : 0;
    }
    plumb_buf_puts(b, "[");
    for (uint32_t i = 0; i < t->rank; i++)
        plumb_buf_printf(b, "%s%lld", i ? ", " : "", (long long)idx[i]);
    plumb_buf_puts(b, "]");
}

static void put_header(plumb_buf *b, const char *file, const ir_op *op)
{
    if (file)
        plumb_buf_printf(b, "%s:", file);
    if (op->loc.line)
        plumb_buf_printf(b, "%u:%u:", op->loc.line, op->loc.col);
    plumb_buf_printf(b, "%scheck failed: %s", file || op->loc.line ? " " : "", plumb_op_name(op->code));
}

static void type_of(plumb_buf *b, const plumb_tensor *t)
{
    plumb_tensor_type_print(b, t);
}

typedef enum check_kind { CHECK_EQ, CHECK_CLOSE, CHECK_ALMOST } check_kind;

/* ---- arbitration (docs/spec/checks.md "Arbitration") ---------------------------- */

/* A reduce body that is `return add(a, b)` (or add(b, a)) of its two
 * arguments. */
static bool is_add_body(const ir_block *b)
{
    if (b->n_args != 2 || !b->first || b->first->code != PLUMB_OP_ADD || b->first->n_operands != 2)
        return false;
    const ir_op *add = b->first, *ret = add->next;
    bool args = (add->operands[0] == b->args[0] && add->operands[1] == b->args[1]) ||
                (add->operands[0] == b->args[1] && add->operands[1] == b->args[0]);
    return args && ret && ret->code == PLUMB_OP_RETURN && ret->n_operands == 1 &&
           ret->operands[0] == add->results[0] && !ret->next;
}

/* The arbitrable op that computes v (docs/spec/checks.md "Arbitration"),
 * through reshapes (a reshape keeps every element's bits and order, so the
 * checked elements are the producer's; a convert rounds again and is not
 * followed) and, with m and calls, through func.call into the value the
 * callee returns, recording each call followed (outermost first). */
static const ir_op *arb_producer_of(const ir_module *m, const ir_value *v, const ir_op **calls, uint32_t *n_calls)
{
    /* complex values: only a dot's, arbitrated per component (its real
     * and imaginary parts are each a sum of 2k products) */
    bool cplx = plumb_dtype_is_complex(v->type.dtype);
    if (!plumb_dtype_is_float(v->type.dtype) && !cplx)
        return NULL;
    for (;;) {
        while (v->def && v->def->code == PLUMB_OP_RESHAPE && v->def->n_operands == 1)
            v = v->def->operands[0];
        const ir_op *c = v->def;
        if (!m || !calls || !c || c->code != PLUMB_OP_CALL || *n_calls >= PLUMB_CHECK_ARB_MAX_CALLS)
            break;
        /* the callee's returned value: the check compares it, bit for bit */
        const ir_func *f = c->a.callee ? ir_module_find_func(m, c->a.callee) : NULL;
        const ir_op *ret = f ? f->body.last : NULL;
        if (!ret || ret->code != PLUMB_OP_FUNC_RETURN || v->index >= ret->n_operands ||
            f->body.n_args != c->n_operands)
            return NULL;
        calls[(*n_calls)++] = c;
        v = ret->operands[v->index];
    }
    const ir_op *p = v->def;
    if (cplx)
        return p && p->n_results == 1 && p->n_operands == 2 &&
               (p->code == PLUMB_OP_DOT_GENERAL || p->code == PLUMB_OP_DOT) ? p : NULL;
    if (!p || p->n_results != 1 || !plumb_dtype_is_float(p->results[0]->type.dtype))
        return NULL;
    if (p->code == PLUMB_OP_DOT_GENERAL || p->code == PLUMB_OP_DOT)
        return p->n_operands == 2 ? p : NULL;
    /* a sum: reduce, or reduce_window (init plus every window position,
     * each output its own sum: JAX's cumsum), of one input with an add body */
    if ((p->code == PLUMB_OP_REDUCE || p->code == PLUMB_OP_REDUCE_WINDOW) && p->n_operands == 2 &&
        p->n_regions == 1 && is_add_body(&p->regions[0]))
        return p;
    /* An elementwise op of the ULP class (exp, cosh, power, ...): the
     * reference returns its correctly rounded result, the exact result
     * rounded once, so an expected value further from it than the
     * backend's can be arbitrated too. Its operands share the result's
     * float type. */
    const plumb_op_info *oi = plumb_op_get(p->code);
    if (oi->kind == PLUMB_KIND_ELEMENTWISE && oi->agree == PLUMB_AGREE_ULP && p->n_regions == 0 &&
        p->n_operands >= 1 && p->n_operands <= 3) {
        for (uint32_t i = 0; i < p->n_operands; i++)
            if (p->operands[i]->type.dtype != p->results[0]->type.dtype)
                return NULL;
        return p;
    }
    return NULL;
}

const ir_op *plumb_check_arb_producer(const ir_op *check)
{
    if (!check || check->n_operands < 1)
        return NULL;
    return arb_producer_of(NULL, check->operands[0], NULL, NULL);
}

const ir_op *plumb_check_arb_trace(const ir_module *m, const ir_op *check, const ir_op **calls, uint32_t *n_calls)
{
    *n_calls = 0;
    if (!check || check->n_operands < 1)
        return NULL;
    return arb_producer_of(m, check->operands[0], calls, n_calls);
}

bool plumb_check_arb_enabled(void)
{
    const char *e = getenv("PLUMB_ARBITRATE");
    return !(e && strcmp(e, "0") == 0);
}

/* The arbitration state of one check run: the producer's exact result and
 * bound, computed at the first failing element. */
typedef struct arb_run {
    plumb_check_arb *arb;
    const ir_op *producer;
    const ir_op *calls[PLUMB_CHECK_ARB_MAX_CALLS];   /* func.calls followed to it, outermost first */
    uint32_t n_calls;
    bool tried;
    plumb_tensor *exact, *bound;
    char why[512];
    plumb_buf notes;           /* accepted elements */
    uint32_t notes_shown;
    uint64_t worst_want, worst_got;   /* over accepted elements, ULP from exact */
} arb_run;

typedef enum arb_verdict { ARB_NONE, ARB_ACCEPT, ARB_REJECT } arb_verdict;

static void put_index(plumb_buf *b, const plumb_tensor *t, uint64_t lin);
static void put_value(plumb_buf *b, plumb_dtype t, uint64_t bits);

/* Judges mismatching element i; writes the distances to *ulp_want,
 * *ulp_got and whether got is within the bound. ARB_NONE when there is
 * nothing to arbitrate with (not a dot or sum, no exact result, NaN or
 * infinity anywhere). */
static arb_verdict arb_judge(arb_run *r, const plumb_tensor *got, uint64_t i, uint64_t g, uint64_t w,
                             uint64_t *ulp_want, uint64_t *ulp_got, bool *within)
{
    if (!r->producer)
        return ARB_NONE;
    if (!r->tried) {
        r->tried = true;
        if (!plumb_check_arb_compute_in(r->arb->m, r->calls, r->n_calls, r->producer, r->arb->max_bytes, &r->exact,
                                        &r->bound, r->why, sizeof r->why))
            r->exact = r->bound = NULL;
    }
    if (!r->exact)
        return ARB_NONE;
    plumb_dtype t = got->dtype;
    uint64_t e = plumb_load_bits(t, r->exact->data, i);
    if (plumb_float_is_nan(t, e) || is_inf(t, e) || plumb_float_is_nan(t, g) || is_inf(t, g) ||
        plumb_float_is_nan(t, w) || is_inf(t, w))
        return ARB_NONE;
    *ulp_want = plumb_ulp_distance(t, w, e);
    *ulp_got = plumb_ulp_distance(t, g, e);
    unsigned char buf[16];
    plumb_store_bits(t, buf, 0, g);
    plumb_store_bits(t, buf, 1, e);
    double err = fabs(plumb_load_f64(t, buf, 0) - plumb_load_f64(t, buf, 1));
    double bound = plumb_f64_from_bits(plumb_load_bits(PLUMB_F64, r->bound->data, i));
    *within = err <= bound;   /* false for a NaN bound */
    return *within && *ulp_want > *ulp_got && r->arb->accept ? ARB_ACCEPT : ARB_REJECT;
}

/* "expected value is 128 ulp from the exact result, which this backend
 * returns (correctly rounded)", or the backend's own distance. */
static void put_sides(plumb_buf *b, uint64_t ulp_want, uint64_t ulp_got, bool within)
{
    plumb_buf_printf(b, "expected value is %" PRIu64 " ulp from the exact result, ", ulp_want);
    if (ulp_got == 0)
        plumb_buf_puts(b, "which this backend returns (correctly rounded)");
    else
        plumb_buf_printf(b, "this backend's %" PRIu64 " ulp (%s the op's bound)", ulp_got,
                         within ? "within" : "outside");
}

static void put_producer(plumb_buf *b, const arb_run *r)
{
    const ir_op *p = r->producer;
    plumb_buf_puts(b, plumb_op_name(p->code));
    if (p->loc.line)
        plumb_buf_printf(b, " at %u:%u", p->loc.line, p->loc.col);
    /* the call the check reads, whose callee returns the producer's value */
    if (r->n_calls) {
        const ir_op *c = r->calls[0];
        plumb_buf_printf(b, " returned by func.call @%s", c->a.callee ? c->a.callee : "?");
        if (c->loc.line)
            plumb_buf_printf(b, " at %u:%u", c->loc.line, c->loc.col);
    }
}

bool plumb_check_run(const ir_op *op, const plumb_tensor *got, const plumb_tensor *want,
                     FILE *log, uint32_t max_mismatches, const char *file,
                     plumb_check_poll_fn poll, void *poll_ud, bool *passed)
{
    return plumb_check_run_arb(op, got, want, log, max_mismatches, file, poll, poll_ud, NULL, passed);
}

bool plumb_check_run_arb(const ir_op *op, const plumb_tensor *got, const plumb_tensor *want,
                         FILE *log, uint32_t max_mismatches, const char *file,
                         plumb_check_poll_fn poll, void *poll_ud, plumb_check_arb *arb, bool *passed)
{
    check_kind kind = op->code == PLUMB_OP_EXPECT_CLOSE || op->code == PLUMB_OP_EXPECT_CLOSE_CONST ? CHECK_CLOSE
                      : op->code == PLUMB_OP_EXPECT_ALMOST_EQ || op->code == PLUMB_OP_EXPECT_ALMOST_EQ_CONST
                      ? CHECK_ALMOST : CHECK_EQ;
    if (!log)
        log = stderr;
    plumb_buf b;
    plumb_buf_init(&b);
    bool same_type = got->dtype == want->dtype && got->rank == want->rank;
    for (uint32_t i = 0; same_type && i < got->rank; i++)
        same_type = got->dims[i] == want->dims[i];
    if (!same_type) {
        put_header(&b, file, op);
        plumb_buf_puts(&b, "\n  got type ");
        type_of(&b, got);
        plumb_buf_puts(&b, " but expected type ");
        type_of(&b, want);
        plumb_buf_puts(&b, "\n");
        *passed = false;
        if (b.data)
            fputs(b.data, log);
        plumb_buf_free(&b);
        return true;
    }
    plumb_dtype t = got->dtype;
    if (plumb_dtype_is_complex(t) && got->rank < PLUMB_MAX_RANK) {
        /* Complex elements are checked per component, as StableHLO's
         * checks do: the tensors are viewed as their component type with a
         * last dimension of 2 (real, imaginary), which reports name. A
         * dot's components are arbitrated in that view (the exact result
         * and bounds come per component, ref/arbitrate.c). */
        plumb_tensor gv = *got, wv = *want;
        gv.dtype = wv.dtype = plumb_dtype_component(t);
        gv.dims[gv.rank++] = 2;
        wv.dims[wv.rank++] = 2;
        gv.owned = wv.owned = false;
        plumb_buf_free(&b);
        return plumb_check_run_arb(op, &gv, &wv, log, max_mismatches, file, poll, poll_ud, arb, passed);
    }
    bool is_float = plumb_dtype_is_float(t);
    /* ui64 bounds, as StableHLO's attributes (ir/parse.c parse_ulp) */
    uint64_t min_ulp = (uint64_t)op->a.min_ulp, max_ulp = (uint64_t)op->a.max_ulp;
    uint64_t n = plumb_tensor_numel(got), bad = 0, worst_ulp = 0;
    uint32_t shown = 0, limit = max_mismatches;
    arb_run ar = {.arb = arb};
    if (arb && is_float)
        ar.producer = plumb_check_arb_trace(arb->m, op, ar.calls, &ar.n_calls);
    plumb_buf_init(&ar.notes);
    if (arb)
        arb->accepted = 0;
    for (uint64_t i = 0; i < n; i++) {
        if ((i & 0xffff) == 0xffff && poll && !poll(poll_ud)) {
            plumb_buf_free(&b);
            plumb_buf_free(&ar.notes);
            plumb_tensor_free(ar.exact);
            plumb_tensor_free(ar.bound);
            return false;
        }
        uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
        bool ok;
        uint64_t ulp = 0;
        bool has_ulp = false;
        if (kind == CHECK_CLOSE && is_float) {
            /* StableHLO's ulp_difference: 0 for two NaNs or equal bits;
             * 2^64 - 1 ("infinitely far") when a NaN or an infinity meets
             * anything else, so only max_ulp_difference = 2^64 - 1 accepts
             * that (upstream's math tests check exactly this). */
            bool ng = plumb_float_is_nan(t, g), nw = plumb_float_is_nan(t, w);
            if (ng && nw)
                ulp = 0;
            else if (ng || nw || is_inf(t, g) || is_inf(t, w))
                ulp = g == w ? 0 : UINT64_MAX;
            else
                ulp = plumb_ulp_distance(t, g, w);
            has_ulp = !ng && !nw;
            ok = ulp >= min_ulp && ulp <= max_ulp;
        } else if (kind == CHECK_ALMOST) {
            ok = plumb_almost_eq(t, g, w, op->a.tolerance);
        } else {
            ok = eq_elem(t, g, w);
        }
        if (ok)
            continue;
        uint64_t ulp_want = 0, ulp_got = 0;
        bool within = false;
        arb_verdict v = is_float ? arb_judge(&ar, got, i, g, w, &ulp_want, &ulp_got, &within) : ARB_NONE;
        if (v == ARB_ACCEPT) {
            /* Accepted: never silently; each element is named in the note
             * (up to the report's limit) and all are counted. */
            arb->accepted++;
            if (ulp_want > ar.worst_want)
                ar.worst_want = ulp_want;
            if (ulp_got > ar.worst_got)
                ar.worst_got = ulp_got;
            if (ar.notes_shown < limit) {
                ar.notes_shown++;
                plumb_buf_puts(&ar.notes, "\n  at ");
                put_index(&ar.notes, got, i);
                plumb_buf_puts(&ar.notes, ": got ");
                put_value(&ar.notes, t, g);
                plumb_buf_puts(&ar.notes, ", expected ");
                put_value(&ar.notes, t, w);
                plumb_buf_puts(&ar.notes, ": ");
                put_sides(&ar.notes, ulp_want, ulp_got, within);
            }
            continue;
        }
        if (is_float && !has_ulp && !plumb_float_is_nan(t, g) && !plumb_float_is_nan(t, w)) {
            ulp = plumb_ulp_distance(t, g, w);
            has_ulp = true;
        }
        if (has_ulp && ulp > worst_ulp)
            worst_ulp = ulp;
        if (bad++ == 0)
            put_header(&b, file, op);
        if (shown < limit) {
            shown++;
            plumb_buf_puts(&b, "\n  at ");
            put_index(&b, got, i);
            plumb_buf_puts(&b, ": got ");
            put_value(&b, t, g);
            plumb_buf_puts(&b, ", expected ");
            put_value(&b, t, w);
            if (has_ulp)
                plumb_buf_printf(&b, ", %" PRIu64 " ulp apart", ulp);
            else if (is_float)
                plumb_buf_puts(&b, ", NaN against a number");
            if (v == ARB_REJECT) {
                plumb_buf_puts(&b, "; ");
                put_sides(&b, ulp_want, ulp_got, within);
            }
        }
    }
    *passed = bad == 0;
    if (ar.producer && ar.tried && !ar.exact && bad) {
        plumb_buf_puts(&b, "\n  not arbitrated: the checked value comes from ");
        put_producer(&b, &ar);
        plumb_buf_printf(&b, ", but %s", ar.why);
    } else if (ar.exact && bad) {
        plumb_buf_puts(&b, "\n  the checked value comes from ");
        put_producer(&b, &ar);
        plumb_buf_puts(&b, ar.arb->accept ? "; no element above is accepted by arbitration (docs/spec/checks.md)"
                                          : "; arbitration is off (PLUMB_ARBITRATE=0 or --no-arbitrate)");
    }
    if (bad) {
        plumb_buf_printf(&b, "\n  %" PRIu64 " of %" PRIu64 " elements differ", bad, n);
        if (is_float && worst_ulp)
            plumb_buf_printf(&b, " (up to %" PRIu64 " ulp apart)", worst_ulp);
        if (kind == CHECK_CLOSE && is_float)
            plumb_buf_printf(&b, "; allowed %" PRIu64 " to %" PRIu64 " ulp", min_ulp, max_ulp);
        else if (kind == CHECK_ALMOST && is_float)
            plumb_buf_printf(&b, "; tolerance %g", op->a.tolerance);
        plumb_buf_puts(&b, "\n");
        if (b.data && !b.failed)
            fputs(b.data, log);
        else
            fprintf(log, "check failed: %s (out of memory formatting the report)\n",
                    plumb_op_name(op->code));
        fflush(log);
    }
    if (arb && arb->accepted) {
        plumb_buf nb;
        plumb_buf_init(&nb);
        if (file)
            plumb_buf_printf(&nb, "%s:", file);
        if (op->loc.line)
            plumb_buf_printf(&nb, "%u:%u:", op->loc.line, op->loc.col);
        plumb_buf_printf(&nb, "%snote: %s: arbitration accepted %" PRIu64 " of %" PRIu64
                         " elements of the value of ", file || op->loc.line ? " " : "", plumb_op_name(op->code),
                         arb->accepted, n);
        put_producer(&nb, &ar);
        plumb_buf_puts(&nb, ", within the op's bound of its exact result while the expected value is further "
                            "from it");
        plumb_buf_puts(&nb, ar.notes.data ? ar.notes.data : "");
        plumb_buf_printf(&nb, "\n  expected values up to %" PRIu64 " ulp from the exact result, this backend's up to %"
                         PRIu64 " ulp; PLUMB_ARBITRATE=0 or --no-arbitrate turns this off\n",
                         ar.worst_want, ar.worst_got);
        if (nb.data && !nb.failed && !ar.notes.failed)
            fputs(nb.data, log);
        else
            fprintf(log, "note: %s: arbitration accepted %" PRIu64 " elements (out of memory formatting the note)\n",
                    plumb_op_name(op->code), arb->accepted);
        fflush(log);
        plumb_buf_free(&nb);
    }
    plumb_buf_free(&ar.notes);
    plumb_tensor_free(ar.exact);
    plumb_tensor_free(ar.bound);
    plumb_buf_free(&b);
    return true;
}

