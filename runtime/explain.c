/* Recompile explanations: why an entry that already has cached programs
 * needed another one. The new program's canonical serialization is compared
 * node by node with the nearest cached program of the same entry (fewest
 * differing nodes); the first difference is named by node, op, field and old
 * and new value, classified, and paired with what the user can do about it.
 * A baked constant is reported at its first consumer ("node 17
 * stablehlo.multiply operand 1: constant ...") because that is where the
 * user's code turned a value into a constant. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_pipeline.h"

const char *rt_diff_class_name(rt_diff_class c)
{
    switch (c) {
    case RT_DIFF_NONE: return "none";
    case RT_DIFF_CONSTANT: return "baked_constant";
    case RT_DIFF_DIM: return "static_dimension";
    case RT_DIFF_DTYPE: return "element_type";
    case RT_DIFF_ATTR: return "attribute";
    case RT_DIFF_STRUCTURE: return "structure";
    case RT_DIFF_SIGNATURE: return "entry_signature";
    case RT_DIFF_CONTEXT: return "context";
    }
    return "?";
}

static const char *hint(rt_diff_class c)
{
    switch (c) {
    case RT_DIFF_CONSTANT: return "baked constant; pass it as a parameter";
    case RT_DIFF_DIM: return "static dimension; pad to a fixed size or bucket (masking the padding)";
    case RT_DIFF_DTYPE: return "element type; convert at the boundary so every call uses one type";
    case RT_DIFF_ATTR: return "attribute; keep it fixed across calls or compute it from an input";
    case RT_DIFF_STRUCTURE: return "structure; keep optional paths always present and select them with masks";
    case RT_DIFF_SIGNATURE: return "entry signature; pad inputs to fixed shapes and types";
    case RT_DIFF_CONTEXT: return "runtime version, CPU features or compile options changed";
    case RT_DIFF_NONE: break;
    }
    return "";
}

static bool field_eq(const rt_canon *a, const rt_canon_node *na, const rt_canon *b, const rt_canon_node *nb, int f)
{
    return na->len[f] == nb->len[f] &&
           (na->len[f] == 0 || memcmp(a->bytes + na->off[f], b->bytes + nb->off[f], na->len[f]) == 0);
}

static bool node_eq(const rt_canon *a, uint32_t i, const rt_canon *b, uint32_t j)
{
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    if (na->code != nb->code || na->depth != nb->depth)
        return false;
    for (int f = 0; f < RT_F_COUNT; f++)
        if (!field_eq(a, na, b, nb, f))
            return false;
    return true;
}

/* Same op and same fields except where its operands come from: used to
 * recognise an inserted or removed op (which shifts the numbering). */
static bool node_similar(const rt_canon *a, uint32_t i, const rt_canon *b, uint32_t j)
{
    if (i >= a->n_nodes || j >= b->n_nodes)
        return false;
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    return na->code == nb->code && field_eq(a, na, b, nb, RT_F_TYPES) && field_eq(a, na, b, nb, RT_F_ATTRS) &&
           field_eq(a, na, b, nb, RT_F_VALUE);
}

uint32_t rt_canon_distance(const rt_canon *a, const rt_canon *b)
{
    uint32_t n = a->n_nodes < b->n_nodes ? a->n_nodes : b->n_nodes;
    uint32_t d = a->n_nodes > b->n_nodes ? a->n_nodes - b->n_nodes : b->n_nodes - a->n_nodes;
    for (uint32_t i = 0; i < n; i++)
        if (!node_eq(a, i, b, i))
            d++;
    return d;
}

/* ---- decoding -------------------------------------------------------------------- */

static uint32_t ld_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static int64_t ld_i64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }
static uint64_t ld_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

typedef struct ctype {
    uint32_t dtype, rank;
    int64_t dims[PLUMB_MAX_RANK], bounds[PLUMB_MAX_RANK];
} ctype;

/* Reads a type at *p (bounded by end); advances *p. */
static bool rd_type(const uint8_t **p, const uint8_t *end, ctype *t)
{
    if (end - *p < 8)
        return false;
    t->dtype = ld_u32(*p);
    t->rank = ld_u32(*p + 4);
    *p += 8;
    if (t->rank > PLUMB_MAX_RANK || (size_t)(end - *p) < (size_t)t->rank * 16 || t->dtype >= PLUMB_DTYPE_COUNT)
        return false;
    for (uint32_t i = 0; i < t->rank; i++) {
        t->dims[i] = ld_i64(*p);
        t->bounds[i] = ld_i64(*p + 8);
        *p += 16;
    }
    return true;
}

static void type_str(char *out, size_t cap, const ctype *t)
{
    ir_type it;
    memset(&it, 0, sizeof it);
    it.dtype = (plumb_dtype)t->dtype;
    it.rank = t->rank;
    for (uint32_t i = 0; i < t->rank; i++) {
        it.dims[i] = t->dims[i];
        it.bounds[i] = t->dims[i] == PLUMB_DIM_DYN ? t->bounds[i] : PLUMB_NO_BOUND;
    }
    plumb_buf b;
    plumb_buf_init(&b);
    ir_type_print(&b, &it);
    snprintf(out, cap, "%s", b.data && !b.failed ? b.data : "tensor<?>");
    plumb_buf_free(&b);
}

/* Describes how type a became type b: element type or which dimension. */
static rt_diff_class type_change(const ctype *a, const ctype *b, char *out, size_t cap)
{
    char sa[256], sb[256];
    type_str(sa, sizeof sa, a);
    type_str(sb, sizeof sb, b);
    if (a->dtype != b->dtype) {
        snprintf(out, cap, "element type %s became %s (%s became %s)", plumb_dtype_name((plumb_dtype)a->dtype),
                 plumb_dtype_name((plumb_dtype)b->dtype), sa, sb);
        return RT_DIFF_DTYPE;
    }
    if (a->rank != b->rank) {
        snprintf(out, cap, "rank %u became %u (%s became %s)", a->rank, b->rank, sa, sb);
        return RT_DIFF_DIM;
    }
    for (uint32_t i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i] || a->bounds[i] != b->bounds[i]) {
            if (a->dims[i] == PLUMB_DIM_DYN && b->dims[i] == PLUMB_DIM_DYN)
                snprintf(out, cap, "bound of dimension %u: %" PRId64 " became %" PRId64 " (%s became %s)", i,
                         a->bounds[i], b->bounds[i], sa, sb);
            else
                snprintf(out, cap, "dimension %u: %s%" PRId64 " became %s%" PRId64 " (%s became %s)", i,
                         a->dims[i] < 0 ? "?" : "", a->dims[i] < 0 ? 0 : a->dims[i],
                         b->dims[i] < 0 ? "?" : "", b->dims[i] < 0 ? 0 : b->dims[i], sa, sb);
            return RT_DIFF_DIM;
        }
    }
    snprintf(out, cap, "type %s became %s", sa, sb);
    return RT_DIFF_DIM;
}

/* Compares two TYPES fields (a count then types; functions have two lists:
 * parameters, then results). */
static rt_diff_class types_diff(const uint8_t *pa, size_t la, const uint8_t *pb, size_t lb, bool func,
                                char *out, size_t cap)
{
    const uint8_t *ea = pa + la, *eb = pb + lb;
    for (int list = 0; list < (func ? 2 : 1); list++) {
        const char *what = func ? (list == 0 ? "parameter" : "result") : "result";
        if (ea - pa < 4 || eb - pb < 4)
            break;
        uint32_t na = ld_u32(pa), nb = ld_u32(pb);
        pa += 4;
        pb += 4;
        if (na != nb) {
            snprintf(out, cap, "%s count %u became %u", what, na, nb);
            return func ? RT_DIFF_SIGNATURE : RT_DIFF_STRUCTURE;
        }
        for (uint32_t i = 0; i < na; i++) {
            ctype ta, tb;
            if (!rd_type(&pa, ea, &ta) || !rd_type(&pb, eb, &tb))
                goto opaque;
            if (memcmp(&ta, &tb, 8) != 0 || memcmp(ta.dims, tb.dims, ta.rank * 8) != 0 ||
                memcmp(ta.bounds, tb.bounds, ta.rank * 8) != 0) {
                char ch[700];
                rt_diff_class k = type_change(&ta, &tb, ch, sizeof ch);
                snprintf(out, cap, "%s %u %s", what, i, ch);
                return func ? RT_DIFF_SIGNATURE : k;
            }
        }
    }
opaque:
    snprintf(out, cap, "types differ");
    return func ? RT_DIFF_SIGNATURE : RT_DIFF_DIM;
}

static void ints_str(char *out, size_t cap, const uint8_t *p, uint32_t n, uint32_t tag)
{
    size_t at = 0;
    if (tag == RT_A_TOLERANCE_BITS && n == 1) {
        snprintf(out, cap, "%g", plumb_f64_from_bits((uint64_t)ld_i64(p)));
        return;
    }
    at += (size_t)snprintf(out + at, cap - at, n == 1 ? "" : "[");
    for (uint32_t i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%" PRId64, i ? ", " : "", ld_i64(p + 8 * (size_t)i));
    if (n != 1 && at < cap)
        snprintf(out + at, cap - at, "]");
}

static void attrs_diff(const uint8_t *pa, size_t la, const uint8_t *pb, size_t lb, char *out, size_t cap)
{
    const uint8_t *ea = pa + la, *eb = pb + lb;
    if (la < 4 || lb < 4) {
        snprintf(out, cap, "attributes differ");
        return;
    }
    uint32_t na = ld_u32(pa), nb = ld_u32(pb);
    pa += 4;
    pb += 4;
    for (uint32_t i = 0; i < na && i < nb; i++) {
        if (ea - pa < 5 || eb - pb < 5)
            break;
        uint32_t ta = pa[0], tb = pb[0];
        uint32_t ka = ld_u32(pa + 1), kb = ld_u32(pb + 1);
        if ((size_t)(ea - pa - 5) < (size_t)ka * 8 || (size_t)(eb - pb - 5) < (size_t)kb * 8)
            break;
        if (ta != tb || ka != kb || memcmp(pa + 5, pb + 5, (size_t)ka * 8) != 0) {
            char va[200], vb[200];
            ints_str(va, sizeof va, pa + 5, ka, ta);
            ints_str(vb, sizeof vb, pb + 5, kb, tb);
            snprintf(out, cap, "attribute %s %s became %s", rt_canon_attr_name(ta), va, vb);
            return;
        }
        pa += 5 + (size_t)ka * 8;
        pb += 5 + (size_t)kb * 8;
    }
    snprintf(out, cap, "attributes differ");
}

static void elem_str(char *out, size_t cap, plumb_dtype t, const uint8_t *data, size_t i)
{
    if (plumb_dtype_is_float(t))
        snprintf(out, cap, "%e", plumb_load_f64(t, data, i));
    else if (plumb_dtype_is_unsigned(t))
        snprintf(out, cap, "%" PRIu64, plumb_load_u64(t, data, i));
    else if (t == PLUMB_I1)
        snprintf(out, cap, "%s", plumb_load_u64(t, data, i) ? "true" : "false");
    else
        snprintf(out, cap, "%" PRId64, plumb_load_i64(t, data, i));
}

/* Describes the first differing element of two VALUE fields. */
static void value_diff(const uint8_t *pa, size_t la, const uint8_t *pb, size_t lb, char *out, size_t cap,
                       char *old_s, char *new_s, size_t vcap)
{
    old_s[0] = new_s[0] = 0;
    if (la < 16 || lb < 16) {
        snprintf(out, cap, "constant value changed");
        return;
    }
    plumb_dtype ta = (plumb_dtype)ld_u32(pa), tb = (plumb_dtype)ld_u32(pb);
    uint32_t ra = ld_u32(pa + 4), rb = ld_u32(pb + 4);
    if (ta >= PLUMB_DTYPE_COUNT || tb >= PLUMB_DTYPE_COUNT || ra > PLUMB_MAX_RANK || rb > PLUMB_MAX_RANK ||
        la < 16 + (size_t)ra * 8 || lb < 16 + (size_t)rb * 8) {
        snprintf(out, cap, "constant value changed");
        return;
    }
    int64_t dims[PLUMB_MAX_RANK];
    for (uint32_t i = 0; i < ra; i++)
        dims[i] = ld_i64(pa + 8 + 8 * (size_t)i);
    const uint8_t *da = pa + 8 + 8 * (size_t)ra, *db = pb + 8 + 8 * (size_t)rb;
    uint64_t nba = ld_u64(da), nbb = ld_u64(db);
    da += 8;
    db += 8;
    if (ta != tb || ra != rb || nba != nbb || nba > la || nbb > lb) {
        snprintf(out, cap, "constant type changed");
        return;
    }
    size_t es = plumb_dtype_size(ta);
    size_t n = es ? (size_t)(nba / es) : 0;
    /* splats (every element equal, as a scalar constant broadcast by the
     * front end) read best as one value */
    bool splat = n > 0;
    for (size_t i = 1; splat && i < n; i++)
        splat = memcmp(da, da + i * es, es) == 0 && memcmp(db, db + i * es, es) == 0;
    if (splat && memcmp(da, db, es) != 0) {
        elem_str(old_s, vcap, ta, da, 0);
        elem_str(new_s, vcap, ta, db, 0);
        snprintf(out, cap, "constant %s became %s", old_s, new_s);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (memcmp(da + i * es, db + i * es, es) != 0) {
            elem_str(old_s, vcap, ta, da, i);
            elem_str(new_s, vcap, ta, db, i);
            if (n == 1) {
                snprintf(out, cap, "constant %s became %s", old_s, new_s);
            } else {
                char idx[200];
                size_t at = 0;
                int64_t rem = (int64_t)i;
                int64_t ix[PLUMB_MAX_RANK];
                for (uint32_t k = ra; k-- > 0;) {
                    ix[k] = dims[k] ? rem % dims[k] : 0;
                    rem = dims[k] ? rem / dims[k] : 0;
                }
                for (uint32_t k = 0; k < ra && at < sizeof idx; k++)
                    at += (size_t)snprintf(idx + at, sizeof idx - at, "%s%" PRId64, k ? ", " : "", ix[k]);
                snprintf(out, cap, "constant element [%s] %s became %s", idx, old_s, new_s);
            }
            return;
        }
    }
    snprintf(out, cap, "constant value changed");
}

/* The first node after i (same function, any depth) that uses a value
 * defined by node i, and which operand; false if none. */
static bool first_consumer(const rt_canon *c, uint32_t i, uint32_t *node, uint32_t *operand)
{
    const rt_canon_node *def = &c->nodes[i];
    for (uint32_t j = i + 1; j < c->n_nodes && c->nodes[j].func == def->func; j++) {
        const rt_canon_node *u = &c->nodes[j];
        if (u->code == RT_NODE_FUNC || u->len[RT_F_OPERANDS] < 4)
            continue;
        const uint8_t *p = c->bytes + u->off[RT_F_OPERANDS];
        uint32_t n = ld_u32(p);
        for (uint32_t k = 0; k < n && 4 + 4 * (size_t)(k + 1) <= u->len[RT_F_OPERANDS]; k++) {
            uint64_t v = (uint64_t)u->vbase + ld_u32(p + 4 + 4 * (size_t)k);
            if (v < c->n_vals && c->val_node[v] == i) {
                *node = j;
                *operand = k;
                return true;
            }
        }
    }
    return false;
}

static const char *op_name(uint32_t code)
{
    return code < PLUMB_OP_COUNT ? plumb_op_name((plumb_opcode)code) : "func.func";
}

/* JSON string body with escapes. */
static void json_str(plumb_buf *b, const char *s)
{
    plumb_buf_puts(b, "\"");
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            plumb_buf_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            plumb_buf_printf(b, "\\u%04x", ch);
        else
            plumb_buf_append(b, (const char *)&ch, 1);
    }
    plumb_buf_puts(b, "\"");
}

/* One difference between an aligned pair of nodes (or a node only one
 * program has). */
typedef struct rt_diff {
    rt_diff_class cls;
    uint32_t node;             /* where it is reported (in the new program, or the old one's for a removal) */
    uint32_t operand;          /* UINT32_MAX = none */
    const rt_canon_node *at;   /* the node reported, NULL for the context */
    bool at_old;               /* at is in the old program (a removed op) */
    char field[16];
    char what[1024];
    char old_s[64], new_s[64];
} rt_diff;

/* Describes how node a (old) and node b (now), aligned with each other,
 * differ. Attributes and constant values are compared before result types,
 * so a shape change is named where it starts (top_k's k, iota's size, a
 * constant) and not only where it surfaces. */
static void describe_pair(const rt_canon *old, uint32_t i, const rt_canon *now, uint32_t j, rt_diff *df)
{
    const rt_canon_node *a = &old->nodes[i], *b = &now->nodes[j];
    df->at = b;
    df->node = j;
    if (a->code == RT_NODE_FUNC && b->code == RT_NODE_FUNC) {
        df->cls = types_diff(old->bytes + a->off[RT_F_TYPES], a->len[RT_F_TYPES], now->bytes + b->off[RT_F_TYPES],
                             b->len[RT_F_TYPES], true, df->what, sizeof df->what);
        if (b->func != 0)
            df->cls = RT_DIFF_STRUCTURE;   /* a called function's signature */
        snprintf(df->field, sizeof df->field, "signature");
    } else if (a->code != b->code || a->depth != b->depth) {
        df->cls = RT_DIFF_STRUCTURE;
        snprintf(df->field, sizeof df->field, "op");
        snprintf(df->what, sizeof df->what, "%s became %s", op_name(a->code), op_name(b->code));
    } else if (!field_eq(old, a, now, b, RT_F_OPERANDS)) {
        df->cls = RT_DIFF_STRUCTURE;
        snprintf(df->field, sizeof df->field, "operands");
        uint32_t na = a->len[RT_F_OPERANDS] >= 4 ? ld_u32(old->bytes + a->off[RT_F_OPERANDS]) : 0;
        uint32_t nb = b->len[RT_F_OPERANDS] >= 4 ? ld_u32(now->bytes + b->off[RT_F_OPERANDS]) : 0;
        snprintf(df->what, sizeof df->what, "operands changed");
        if (na != nb) {
            snprintf(df->what, sizeof df->what, "operand count %u became %u", na, nb);
        } else {
            for (uint32_t k = 0; k < na; k++) {
                uint32_t va = ld_u32(old->bytes + a->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
                uint32_t vb = ld_u32(now->bytes + b->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
                if (va != vb) {
                    df->operand = k;
                    uint64_t ga = (uint64_t)a->vbase + va, gb = (uint64_t)b->vbase + vb;
                    uint32_t da = ga < old->n_vals ? old->val_node[ga] : UINT32_MAX;
                    uint32_t db = gb < now->n_vals ? now->val_node[gb] : UINT32_MAX;
                    char sa[64], sb[64];
                    if (da == UINT32_MAX)
                        snprintf(sa, sizeof sa, "an argument");
                    else
                        snprintf(sa, sizeof sa, "node %u", da);
                    if (db == UINT32_MAX)
                        snprintf(sb, sizeof sb, "an argument");
                    else
                        snprintf(sb, sizeof sb, "node %u", db);
                    snprintf(df->what, sizeof df->what, "now reads %s instead of %s", sb, sa);
                    break;
                }
            }
        }
    } else if (!field_eq(old, a, now, b, RT_F_ATTRS)) {
        df->cls = RT_DIFF_ATTR;
        snprintf(df->field, sizeof df->field, "attribute");
        attrs_diff(old->bytes + a->off[RT_F_ATTRS], a->len[RT_F_ATTRS], now->bytes + b->off[RT_F_ATTRS],
                   b->len[RT_F_ATTRS], df->what, sizeof df->what);
    } else if (!field_eq(old, a, now, b, RT_F_VALUE)) {
        df->cls = RT_DIFF_CONSTANT;
        snprintf(df->field, sizeof df->field, "constant");
        char v[400];
        value_diff(old->bytes + a->off[RT_F_VALUE], a->len[RT_F_VALUE], now->bytes + b->off[RT_F_VALUE],
                   b->len[RT_F_VALUE], v, sizeof v, df->old_s, df->new_s, sizeof df->old_s);
        uint32_t cn, co;
        if (b->code == PLUMB_OP_CONSTANT && first_consumer(now, j, &cn, &co)) {
            /* reported where the user's code turned a value into a constant */
            df->node = cn;
            df->operand = co;
            df->at = &now->nodes[cn];
            snprintf(df->what, sizeof df->what, "%s (defined by node %u)", v, j);
        } else {
            snprintf(df->what, sizeof df->what, "%s", v);
        }
    } else if (!field_eq(old, a, now, b, RT_F_REGIONS)) {
        df->cls = RT_DIFF_STRUCTURE;
        snprintf(df->field, sizeof df->field, "region");
        snprintf(df->what, sizeof df->what, "region arguments changed");
    } else {
        df->cls = types_diff(old->bytes + a->off[RT_F_TYPES], a->len[RT_F_TYPES], now->bytes + b->off[RT_F_TYPES],
                             b->len[RT_F_TYPES], false, df->what, sizeof df->what);
        snprintf(df->field, sizeof df->field, "type");
    }
}

/* True when the parameter lists (the first list of a function node's TYPES
 * field) of two function nodes differ; a change in results only leaves the
 * arguments as they were. */
static bool params_differ(const rt_canon *a, const rt_canon_node *na, const rt_canon *b, const rt_canon_node *nb)
{
    const uint8_t *pa = a->bytes + na->off[RT_F_TYPES], *pb = b->bytes + nb->off[RT_F_TYPES];
    const uint8_t *ea = pa + na->len[RT_F_TYPES], *eb = pb + nb->len[RT_F_TYPES];
    if (ea - pa < 4 || eb - pb < 4)
        return true;
    uint32_t n = ld_u32(pa);
    if (n != ld_u32(pb))
        return true;
    pa += 4;
    pb += 4;
    for (uint32_t i = 0; i < n; i++) {
        ctype ta, tb;
        if (!rd_type(&pa, ea, &ta) || !rd_type(&pb, eb, &tb))
            return true;
        if (ta.dtype != tb.dtype || ta.rank != tb.rank || memcmp(ta.dims, tb.dims, ta.rank * 8) != 0 ||
            memcmp(ta.bounds, tb.bounds, ta.rank * 8) != 0)
            return true;
    }
    return false;
}

/* True when some operand of node j (of now) is a value whose type changed:
 * an argument of a changed signature, or the result of a node marked in
 * changed[] (indexed by node of now). */
static bool reads_changed(const rt_canon *now, uint32_t j, const bool *changed, bool sig_changed)
{
    const rt_canon_node *u = &now->nodes[j];
    if (u->code == RT_NODE_FUNC || u->len[RT_F_OPERANDS] < 4)
        return false;
    const uint8_t *p = now->bytes + u->off[RT_F_OPERANDS];
    uint32_t n = ld_u32(p);
    for (uint32_t k = 0; k < n && 4 + 4 * (size_t)(k + 1) <= u->len[RT_F_OPERANDS]; k++) {
        uint64_t v = (uint64_t)u->vbase + ld_u32(p + 4 + 4 * (size_t)k);
        if (v >= now->n_vals)
            continue;
        uint32_t def = now->val_node[v];
        if (def == UINT32_MAX ? sig_changed : changed[def])
            return true;
    }
    return false;
}

#define RT_MAX_DIFFS 64

static void diff_text(plumb_buf *b, const rt_diff *df, const rt_canon *old, const rt_canon *now)
{
    const rt_canon *in = df->at_old ? old : now;
    if (df->at) {
        plumb_buf_printf(b, "node %u %s", df->node, op_name(df->at->code));
        if (df->operand != UINT32_MAX)
            plumb_buf_printf(b, " operand %u", df->operand);
        plumb_buf_puts(b, ": ");
    }
    plumb_buf_printf(b, "%s (%s)", df->what, hint(df->cls));
    if (df->at && df->at->loc.line)
        plumb_buf_printf(b, " at %s:%u:%u", in->file ? in->file : "<module>", df->at->loc.line, df->at->loc.col);
    if (df->at && df->at->origin)
        plumb_buf_printf(b, " (from %s)", in->origins + df->at->origin - 1);
}

static void diff_json(plumb_buf *b, const rt_diff *df, const rt_canon *old, const rt_canon *now)
{
    const rt_canon *in = df->at_old ? old : now;
    plumb_buf_printf(b, "\"class\": \"%s\", \"node\": %u", rt_diff_class_name(df->cls), df->node);
    plumb_buf_puts(b, ", \"op\": ");
    json_str(b, df->at ? op_name(df->at->code) : "");
    if (df->operand != UINT32_MAX)
        plumb_buf_printf(b, ", \"operand\": %u", df->operand);
    plumb_buf_puts(b, ", \"field\": ");
    json_str(b, df->field);
    plumb_buf_puts(b, ", \"what\": ");
    json_str(b, df->what);
    if (df->old_s[0]) {
        plumb_buf_puts(b, ", \"old\": ");
        json_str(b, df->old_s);
        plumb_buf_puts(b, ", \"new\": ");
        json_str(b, df->new_s);
    }
    plumb_buf_puts(b, ", \"hint\": ");
    json_str(b, hint(df->cls));
    if (df->at && df->at->loc.line) {
        plumb_buf_puts(b, ", \"file\": ");
        json_str(b, in->file ? in->file : "");
        plumb_buf_printf(b, ", \"line\": %u, \"col\": %u", df->at->loc.line, df->at->loc.col);
    }
    if (df->at && df->at->origin) {
        plumb_buf_puts(b, ", \"from\": ");
        json_str(b, in->origins + df->at->origin - 1);
    }
}

rt_diff_class rt_explain(const rt_canon *old, const rt_canon *now, const char *entry, uint32_t program,
                         uint32_t nearest, char *line, size_t line_cap, char *json, size_t json_cap)
{
    /* Every difference, found by walking both programs together: nodes of
     * the same op are compared field by field; an op present on one side
     * only (the next nodes line up again once it is skipped) is an
     * insertion or a removal and shifts the alignment. After the first
     * insertion or removal, value numbers differ everywhere downstream, so
     * operand-only differences are consequences and not listed; a result
     * type that changed only because an operand's type changed is a
     * consequence too (the origin is listed). */
    static const rt_diff zero_diff = {.operand = UINT32_MAX};
    rt_diff *diffs = plumb_calloc(RT_MAX_DIFFS, sizeof *diffs);
    bool *changed = plumb_calloc(now->n_nodes ? now->n_nodes : 1, sizeof *changed);
    uint32_t n_diffs = 0, dropped = 0, derived = 0, aligned = 0;
    rt_diff_class first = RT_DIFF_CONTEXT;
    if (!diffs || !changed) {
        snprintf(line, line_cap, "recompile of @%s (program %u): out of memory explaining it", entry, program);
        snprintf(json, json_cap, "{}");
        goto out;
    }
    uint32_t i = 0, j = 0;
    bool shifted = false, sig_changed = false;
    while (i < old->n_nodes || j < now->n_nodes) {
        rt_diff df = zero_diff;
        bool have = false;
        if (i < old->n_nodes && j < now->n_nodes && node_eq(old, i, now, j)) {
            i++;
            j++;
            continue;
        }
        aligned++;
        bool same_op = i < old->n_nodes && j < now->n_nodes && old->nodes[i].code == now->nodes[j].code &&
                       old->nodes[i].depth == now->nodes[j].depth;
        bool removed = i < old->n_nodes && (j >= now->n_nodes || (!same_op && node_similar(old, i + 1, now, j)));
        bool added = !removed && j < now->n_nodes && (i >= old->n_nodes || (!same_op && node_similar(old, i, now, j + 1)));
        if (removed) {
            df.cls = RT_DIFF_STRUCTURE;
            df.at = &old->nodes[i];
            df.at_old = true;
            df.node = i;
            snprintf(df.field, sizeof df.field, "op");
            snprintf(df.what, sizeof df.what, "%s removed (node %u of the cached program)", op_name(old->nodes[i].code), i);
            shifted = true;
            have = true;
            i++;
        } else if (added) {
            df.cls = RT_DIFF_STRUCTURE;
            df.at = &now->nodes[j];
            df.node = j;
            snprintf(df.field, sizeof df.field, "op");
            snprintf(df.what, sizeof df.what, "%s added", op_name(now->nodes[j].code));
            changed[j] = true;
            shifted = true;
            have = true;
            j++;
        } else {
            describe_pair(old, i, now, j, &df);
            const rt_canon_node *a = &old->nodes[i], *b = &now->nodes[j];
            bool types_differ = !field_eq(old, a, now, b, RT_F_TYPES);
            if (b->code == RT_NODE_FUNC && b->func == 0 && types_differ && params_differ(old, a, now, b))
                sig_changed = true;
            changed[j] = types_differ;
            have = true;
            if (!strcmp(df.field, "operands") && shifted) {
                have = false;
                aligned--;   /* the same op reading renumbered values: not a difference */
            }
            else if (!strcmp(df.field, "type") && reads_changed(now, j, changed, sig_changed))
                have = false;
            if (!have)
                derived++;
            i++;
            j++;
        }
        if (have) {
            if (n_diffs < RT_MAX_DIFFS)
                diffs[n_diffs++] = df;
            else
                dropped++;
        }
    }
    if (n_diffs == 0) {
        diffs[0] = zero_diff;
        diffs[0].cls = RT_DIFF_CONTEXT;
        snprintf(diffs[0].field, sizeof diffs[0].field, "context");
        snprintf(diffs[0].what, sizeof diffs[0].what,
                 "the graphs are identical; the runtime version, CPU features or compile options differ");
        n_diffs = 1;
    }
    /* grouped by cause, in order of appearance within a cause */
    uint32_t per[RT_DIFF_CONTEXT + 1] = {0};
    for (uint32_t k = 0; k < n_diffs; k++)
        per[diffs[k].cls]++;
    for (uint32_t k = 1; k < n_diffs; k++) {
        rt_diff t = diffs[k];
        uint32_t m = k;
        while (m > 0 && diffs[m - 1].cls > t.cls) {
            diffs[m] = diffs[m - 1];
            m--;
        }
        diffs[m] = t;
    }
    first = diffs[0].cls;
    /* nodes that differ once inserted and removed ops are aligned (not
     * position by position, which counts every node after an insertion) */
    uint32_t dist = aligned;

    plumb_buf b;
    plumb_buf_init(&b);
    plumb_buf_printf(&b, "recompile of @%s (program %u): ", entry, program);
    if (n_diffs + dropped > 1) {
        plumb_buf_printf(&b, "%u differences (", n_diffs + dropped);
        bool sep = false;
        for (int c = RT_DIFF_CONSTANT; c <= RT_DIFF_CONTEXT; c++) {
            if (!per[c])
                continue;
            plumb_buf_printf(&b, "%s%u %s", sep ? ", " : "", per[c], rt_diff_class_name((rt_diff_class)c));
            sep = true;
        }
        plumb_buf_puts(&b, "): ");
    }
    for (uint32_t k = 0; k < n_diffs; k++) {
        if (k)
            plumb_buf_puts(&b, "; ");
        diff_text(&b, &diffs[k], old, now);
    }
    if (dropped)
        plumb_buf_printf(&b, "; %u more not listed", dropped);
    plumb_buf_printf(&b, "; nearest cached program %u, %u of %u nodes differ", nearest, dist, now->n_nodes);
    snprintf(line, line_cap, "%s", b.data && !b.failed ? b.data : "recompile (out of memory describing it)");
    plumb_buf_free(&b);

    /* JSON: the first difference's fields at the top level (as before), then
     * every difference and the count per cause. */
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "{\"entry\": ");
    json_str(&b, entry);
    plumb_buf_printf(&b, ", \"program\": %u, \"nearest_program\": %u, ", program, nearest);
    diff_json(&b, &diffs[0], old, now);
    plumb_buf_puts(&b, ", \"differences\": [");
    for (uint32_t k = 0; k < n_diffs; k++) {
        plumb_buf_puts(&b, k ? ", {" : "{");
        diff_json(&b, &diffs[k], old, now);
        plumb_buf_puts(&b, "}");
    }
    plumb_buf_puts(&b, "], \"causes\": {");
    bool sep = false;
    for (int c = RT_DIFF_CONSTANT; c <= RT_DIFF_CONTEXT; c++) {
        if (!per[c])
            continue;
        plumb_buf_printf(&b, "%s\"%s\": %u", sep ? ", " : "", rt_diff_class_name((rt_diff_class)c), per[c]);
        sep = true;
    }
    plumb_buf_printf(&b, "}, \"not_listed\": %u, \"consequences\": %u, \"differing_nodes\": %u, \"nodes\": %u}",
                     dropped, derived, dist, now->n_nodes);
    /* a truncated object would not parse: fall back to the summary alone */
    if (b.data && !b.failed && b.len < json_cap)
        snprintf(json, json_cap, "%s", b.data);
    else
        snprintf(json, json_cap, "{\"entry\": \"?\", \"program\": %u, \"class\": \"%s\", \"truncated\": true}", program,
                 rt_diff_class_name(first));
    plumb_buf_free(&b);
out:
    if (diffs)
        plumb_free(diffs, RT_MAX_DIFFS * sizeof *diffs);
    if (changed)
        plumb_free(changed, (now->n_nodes ? now->n_nodes : 1) * sizeof *changed);
    return first;
}
