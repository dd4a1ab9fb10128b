/* Check kernels: check.expect_eq, expect_close, expect_almost_eq and their
 * _const forms (docs/spec/checks.md). A check compares its first operand
 * (got) with its second operand or its `value` attribute (expected). A
 * failing check never stops the run: it is counted (ref_count_check) and
 * described on the run's check log, naming the op and its location, the
 * first mismatching elements (multi-dimensional index, got and expected in
 * decimal and hex, ULP distance for floats) and how many elements differ. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ref_internal.h"

/* ---- element comparisons ----------------------------------------------------- */

static uint64_t sign_bit(plumb_dtype t) { return 1ull << (plumb_dtype_get(t)->bits - 1); }
static uint64_t exp_mask(plumb_dtype t)
{
    const plumb_dtype_info *i = plumb_dtype_get(t);
    return ((1ull << i->exp_bits) - 1) << i->mant_bits;
}
static uint64_t mant_mask(plumb_dtype t) { return (1ull << plumb_dtype_get(t)->mant_bits) - 1; }

bool ref_float_is_nan(plumb_dtype t, uint64_t bits)
{
    return (bits & exp_mask(t)) == exp_mask(t) && (bits & mant_mask(t)) != 0;
}

static bool is_inf(plumb_dtype t, uint64_t bits)
{
    return (bits & exp_mask(t)) == exp_mask(t) && (bits & mant_mask(t)) == 0;
}

/* ULP distance on the ordered integer line: a float's magnitude bits,
 * negated for negative values, so that consecutive floats are 1 apart, -0
 * and +0 coincide, the smallest subnormals sit 1 from zero on either side,
 * and +inf is 1 above the largest finite value. NaNs have no place on the
 * line; callers handle them first. */
uint64_t ref_ulp_distance(plumb_dtype t, uint64_t a, uint64_t b)
{
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
    if (plumb_dtype_is_float(t) && ref_float_is_nan(t, got) && ref_float_is_nan(t, want))
        return true;
    if (t == PLUMB_I1)
        return (got != 0) == (want != 0);
    return got == want;
}

/* expect_almost_eq on one element, as StableHLO's interpreter defines it:
 * equal values pass (so -0 and +0); NaN matches only NaN; an infinity
 * matches only the same infinity; values of opposite signs fail; otherwise
 * |got - expected|, computed in double, must not exceed the tolerance. */
bool ref_almost_eq(plumb_dtype t, uint64_t got, uint64_t want, double tolerance)
{
    if (!plumb_dtype_is_float(t))
        return eq_elem(t, got, want);
    bool ng = ref_float_is_nan(t, got), nw = ref_float_is_nan(t, want);
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
        if (ref_float_is_nan(t, bits))
            plumb_buf_puts(b, bits & sign_bit(t) ? "-nan" : "nan");
        else if (is_inf(t, bits))
            plumb_buf_puts(b, bits & sign_bit(t) ? "-inf" : "inf");
        else
            plumb_float_print(b, t, bits);
        plumb_buf_printf(b, " (0x%0*llX)", hexw, (unsigned long long)bits);
        return;
    }
}

static void put_index(plumb_buf *b, const plumb_tensor *t, uint64_t lin)
{
    int64_t idx[PLUMB_MAX_RANK];
    ref_unravel(lin, t->rank, t->dims, idx);
    plumb_buf_puts(b, "[");
    for (uint32_t i = 0; i < t->rank; i++)
        plumb_buf_printf(b, "%s%lld", i ? ", " : "", (long long)idx[i]);
    plumb_buf_puts(b, "]");
}

static void put_header(plumb_buf *b, ref_ctx *c, const ir_op *op)
{
    const char *file = ref_module(c)->filename;
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

/* Compares every element, counts and prints mismatches. Returns false only
 * on a run error (timeout). */
static bool run_check(ref_ctx *c, const ir_op *op, const plumb_tensor *got,
                      const plumb_tensor *want, check_kind kind)
{
    FILE *log = ref_check_log(c);
    plumb_buf b;
    plumb_buf_init(&b);
    bool same_type = got->dtype == want->dtype && got->rank == want->rank;
    for (uint32_t i = 0; same_type && i < got->rank; i++)
        same_type = got->dims[i] == want->dims[i];
    if (!same_type) {
        put_header(&b, c, op);
        plumb_buf_puts(&b, "\n  got type ");
        type_of(&b, got);
        plumb_buf_puts(&b, " but expected type ");
        type_of(&b, want);
        plumb_buf_puts(&b, "\n");
        ref_count_check(c, false);
        if (b.data)
            fputs(b.data, log);
        plumb_buf_free(&b);
        return true;
    }
    plumb_dtype t = got->dtype;
    bool is_float = plumb_dtype_is_float(t);
    int64_t min_ulp = op->a.min_ulp, max_ulp = op->a.max_ulp;
    uint64_t n = plumb_tensor_numel(got), bad = 0, worst_ulp = 0;
    uint32_t shown = 0, limit = ref_max_mismatches(c);
    for (uint64_t i = 0; i < n; i++) {
        if ((i & 0xffff) == 0xffff && !ref_poll(c, op)) {
            plumb_buf_free(&b);
            return false;
        }
        uint64_t g = plumb_load_bits(t, got->data, i), w = plumb_load_bits(t, want->data, i);
        bool ok;
        uint64_t ulp = 0;
        bool has_ulp = false;
        if (kind == CHECK_CLOSE && is_float) {
            bool ng = ref_float_is_nan(t, g), nw = ref_float_is_nan(t, w);
            if (ng || nw) {
                ok = ng && nw;
            } else {
                ulp = ref_ulp_distance(t, g, w);
                has_ulp = true;
                ok = (min_ulp <= 0 || ulp >= (uint64_t)min_ulp) &&
                     (max_ulp >= 0 && ulp <= (uint64_t)max_ulp);
            }
        } else if (kind == CHECK_ALMOST) {
            ok = ref_almost_eq(t, g, w, op->a.tolerance);
        } else {
            ok = eq_elem(t, g, w);
        }
        if (ok)
            continue;
        if (is_float && !has_ulp && !ref_float_is_nan(t, g) && !ref_float_is_nan(t, w)) {
            ulp = ref_ulp_distance(t, g, w);
            has_ulp = true;
        }
        if (has_ulp && ulp > worst_ulp)
            worst_ulp = ulp;
        if (bad++ == 0)
            put_header(&b, c, op);
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
        }
    }
    ref_count_check(c, bad == 0);
    if (bad) {
        plumb_buf_printf(&b, "\n  %" PRIu64 " of %" PRIu64 " elements differ", bad, n);
        if (is_float && worst_ulp)
            plumb_buf_printf(&b, " (up to %" PRIu64 " ulp apart)", worst_ulp);
        if (kind == CHECK_CLOSE && is_float)
            plumb_buf_printf(&b, "; allowed %lld to %lld ulp", (long long)min_ulp, (long long)max_ulp);
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
    plumb_buf_free(&b);
    return true;
}

static const plumb_tensor *expected_const(ref_ctx *c, const ir_op *op)
{
    if (!op->a.value)
        ref_fail(c, op, PLUMB_ERR_INVALID, "the check has no expected value attribute");
    return op->a.value;
}

/* expect_eq: got and expected must be bitwise identical element by element;
 * all NaNs count as equal to each other (any sign or payload); -0 and +0
 * differ. Integers and i1 compare exactly. */
bool ref_op_EXPECT_EQ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1], CHECK_EQ);
}

bool ref_op_EXPECT_EQ_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w, CHECK_EQ);
}

/* expect_close: for floats, the ULP distance (ref_ulp_distance) of each
 * element must lie in [min_ulp, max_ulp] (defaults 0 and 3); a NaN matches
 * only a NaN. Integers and i1 compare exactly. */
bool ref_op_EXPECT_CLOSE(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1], CHECK_CLOSE);
}

bool ref_op_EXPECT_CLOSE_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w, CHECK_CLOSE);
}

/* expect_almost_eq: ref_almost_eq per element with the op's tolerance
 * (default 1e-4). Integers and i1 compare exactly. */
bool ref_op_EXPECT_ALMOST_EQ(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    return run_check(c, op, in[0], in[1], CHECK_ALMOST);
}

bool ref_op_EXPECT_ALMOST_EQ_CONST(ref_ctx *c, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    (void)out;
    const plumb_tensor *w = expected_const(c, op);
    return w && run_check(c, op, in[0], w, CHECK_ALMOST);
}
