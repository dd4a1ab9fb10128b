/* Recompile explanations: why an entry that already has cached programs
 * needed another one. The new program's canonical serialization is aligned
 * with the nearest cached program of the same entry structurally, not by
 * position: the entry's parameters are paired by name (then type), the ops
 * by a heaviest common subsequence of same-kind nodes, so an inserted or
 * removed parameter or op is one difference and everything after it still
 * pairs with its old self. Every difference is named by node, op, field,
 * names the program gives (SSA names, argument locations), old and new value
 * and source location, classified, grouped by cause, and paired with a fix
 * the runtime supports. A shape change is named where it starts (an
 * attribute, a constant, a parameter), not at every op it reaches; a baked
 * constant is reported at its first consumer ("node 17 stablehlo.multiply
 * operand 1: constant ...") because that is where the user's code turned a
 * value into a constant. */
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

/* ---- structural alignment ------------------------------------------------------- */

#define NONE UINT32_MAX

/* What an explanation derives from one serialization: per node its first
 * result value and enclosing op, and the function signature nodes. */
typedef struct cix {
    uint32_t *firstval;        /* per node: first result's value, NONE when it has none */
    uint32_t *parent;          /* per node: the op whose region holds it, NONE at depth 0 */
    uint32_t *funcs;           /* RT_NODE_FUNC nodes in order */
    uint32_t n_funcs;
} cix;

static void cix_free(cix *x, const rt_canon *c)
{
    size_t n = c->n_nodes ? c->n_nodes : 1;
    if (x->firstval)
        plumb_free(x->firstval, n * sizeof *x->firstval);
    if (x->parent)
        plumb_free(x->parent, n * sizeof *x->parent);
    if (x->funcs)
        plumb_free(x->funcs, n * sizeof *x->funcs);
    memset(x, 0, sizeof *x);
}

static bool cix_build(cix *x, const rt_canon *c)
{
    size_t n = c->n_nodes ? c->n_nodes : 1;
    memset(x, 0, sizeof *x);
    x->firstval = plumb_malloc(n * sizeof *x->firstval);
    x->parent = plumb_malloc(n * sizeof *x->parent);
    x->funcs = plumb_malloc(n * sizeof *x->funcs);
    if (!x->firstval || !x->parent || !x->funcs) {
        cix_free(x, c);
        return false;
    }
    uint32_t stack[64];
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        const rt_canon_node *nd = &c->nodes[i];
        x->firstval[i] = NONE;
        x->parent[i] = NONE;
        if (nd->code == RT_NODE_FUNC) {
            x->funcs[x->n_funcs++] = i;
            continue;
        }
        if (nd->depth < 64)
            stack[nd->depth] = i;
        if (nd->depth > 0 && nd->depth <= 64)
            x->parent[i] = stack[nd->depth - 1];
    }
    for (uint32_t v = c->n_vals; v-- > 0;)
        if (c->val_node[v] < c->n_nodes)
            x->firstval[c->val_node[v]] = v;
    return true;
}

static uint32_t count_of(const rt_canon *c, const rt_canon_node *nd, int f)
{
    return nd->len[f] >= 4 ? ld_u32(c->bytes + nd->off[f]) : 0;
}

/* The signature node of the function value v belongs to. */
static uint32_t func_of_value(const rt_canon *c, const cix *x, uint32_t v)
{
    uint32_t f = x->n_funcs ? x->funcs[0] : 0;
    for (uint32_t k = 0; k < x->n_funcs; k++)
        if (c->nodes[x->funcs[k]].vbase <= v)
            f = x->funcs[k];
    return f;
}

/* The name text of a node (an op's first result; a function's first
 * parameter), or NULL. */
static const char *names_of(const rt_canon *c, const rt_canon_node *nd)
{
    return nd->names && c->origins ? c->origins + nd->names - 1 : NULL;
}

/* Parameter p's name in function node nd, or NULL. */
static const char *param_name_of(const rt_canon *c, const rt_canon_node *nd, uint32_t p)
{
    const char *s = names_of(c, nd);
    if (!s)
        return NULL;
    uint32_t np = count_of(c, nd, RT_F_TYPES);
    const char *end = c->origins + c->origins_len;
    for (uint32_t k = 0; k < p && k < np; k++) {
        s += strlen(s) + 1;
        if (s >= end)
            return NULL;
    }
    return *s ? s : NULL;
}

/* "%name" for an SSA-like name, else the name in quotes (a loc name such as
 * batch['doc_ids']); "" without one. */
static void name_str(char *out, size_t cap, const char *name)
{
    if (!name || !*name) {
        snprintf(out, cap, "%s", "");
        return;
    }
    bool ssa = true;
    for (const char *p = name; *p && ssa; p++)
        ssa = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.' || *p == '$' || *p == '-';
    snprintf(out, cap, ssa ? "%%%.100s" : "\"%.100s\"", name);
}

/* Nodes that can be the same op in two programs: same op at the same
 * depth (functions by their place). */
static bool same_kind(const rt_canon *a, uint32_t i, const rt_canon *b, uint32_t j)
{
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    return na->code == nb->code && na->depth == nb->depth && (na->code != RT_NODE_FUNC || na->func == nb->func);
}

/* Same kind and every field equal except where the operands come from
 * (numbering shifts after an inserted or removed value). */
static bool pair_like(const rt_canon *a, uint32_t i, const rt_canon *b, uint32_t j)
{
    if (!same_kind(a, i, b, j))
        return false;
    if (a->nodes[i].code == RT_NODE_FUNC)
        return true;   /* a signature is compared parameter by parameter */
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    return field_eq(a, na, b, nb, RT_F_TYPES) && field_eq(a, na, b, nb, RT_F_ATTRS) &&
           field_eq(a, na, b, nb, RT_F_VALUE) && field_eq(a, na, b, nb, RT_F_REGIONS);
}

/* How much pairing node i of a with node j of b is worth: 0 when they
 * cannot be the same op; more for every field they share, so that of two
 * candidate constants the one with the same value is taken. */
static uint32_t pair_weight(const rt_canon *a, uint32_t i, const rt_canon *b, uint32_t j)
{
    if (!same_kind(a, i, b, j))
        return 0;
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    uint32_t w = 8;
    for (int f = 0; f < RT_F_COUNT; f++)
        if (field_eq(a, na, b, nb, f))
            w += f == RT_F_OPERANDS ? 1 : 2;
    return w;
}

typedef struct rt_al rt_al;
static uint32_t map_value(const rt_al *al, uint32_t va);

/* Pairs the nodes of the two programs (al->o2n: per node of old its
 * partner in now or NONE; n2o the reverse), once the parameters are
 * paired: the entry's signature with the entry's; then, from the start,
 * the same op with the same attributes and value reading the same values
 * (through the pairing so far; its result types may differ: that is a
 * difference, not another op); from the end, nodes equal but for where
 * their operands come from; the rest by a heaviest common subsequence of
 * same-kind nodes (an inserted op is one unpaired node and everything
 * after it still pairs with its old self), or by position when its table
 * would exceed max_cells. False when out of memory. */
static bool align_nodes(rt_al *al, uint64_t max_cells);

/* The entry's parameter types, read from its signature node. */
static uint32_t read_params(const rt_canon *c, const rt_canon_node *nd, ctype *t, uint32_t cap)
{
    const uint8_t *p = c->bytes + nd->off[RT_F_TYPES], *e = p + nd->len[RT_F_TYPES];
    if (e - p < 4)
        return 0;
    uint32_t n = ld_u32(p);
    p += 4;
    uint32_t k = 0;
    for (; k < n && k < cap; k++)
        if (!rd_type(&p, e, &t[k]))
            break;
    return k;
}

static bool ctype_eq(const ctype *a, const ctype *b)
{
    return a->dtype == b->dtype && a->rank == b->rank && memcmp(a->dims, b->dims, a->rank * 8) == 0 &&
           memcmp(a->bounds, b->bounds, a->rank * 8) == 0;
}

/* A parameter's name for pairing: NULL for the names printers and front
 * ends number by position (%0, %arg3), which say nothing about identity. */
static const char *pairing_name(const rt_canon *c, const rt_canon_node *nd, uint32_t p)
{
    const char *s = param_name_of(c, nd, p);
    if (!s)
        return NULL;
    const char *d = !strncmp(s, "arg", 3) ? s + 3 : s;
    if (!*d)
        return s;
    for (const char *q = d; *q; q++)
        if (*q < '0' || *q > '9')
            return s;
    return NULL;
}

/* Pairs the entry's parameters: by name first (a field that moved is still
 * itself), then the rest by type in order, then what is left at the same
 * position unless both have names and they differ (a retyped parameter).
 * The rest are added or removed. */
static void align_params(const rt_canon *a, const ctype *ta, uint32_t na, const rt_canon *b, const ctype *tb,
                         uint32_t nb, uint32_t *po2n, uint32_t *pn2o)
{
    for (uint32_t i = 0; i < na; i++)
        po2n[i] = NONE;
    for (uint32_t j = 0; j < nb; j++)
        pn2o[j] = NONE;
    const rt_canon_node *fa = &a->nodes[0], *fb = &b->nodes[0];
    for (uint32_t i = 0; i < na; i++) {
        const char *sa = pairing_name(a, fa, i);
        for (uint32_t j = 0; sa && j < nb; j++) {
            const char *sb = pairing_name(b, fb, j);
            if (pn2o[j] == NONE && sb && !strcmp(sa, sb)) {
                po2n[i] = j;
                pn2o[j] = i;
                break;
            }
        }
    }
    /* then by type, in order: a renamed parameter is the same parameter
     * (names are not part of the key) */
    uint32_t from = 0;
    for (uint32_t i = 0; i < na; i++) {
        if (po2n[i] != NONE)
            continue;
        for (uint32_t j = from; j < nb; j++) {
            if (pn2o[j] == NONE && ctype_eq(&ta[i], &tb[j])) {
                po2n[i] = j;
                pn2o[j] = i;
                from = j + 1;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < na && i < nb; i++) {
        const char *sa = pairing_name(a, fa, i), *sb = pairing_name(b, fb, i);
        if (po2n[i] == NONE && pn2o[i] == NONE && !(sa && sb && strcmp(sa, sb) != 0)) {
            po2n[i] = i;
            pn2o[i] = i;
        }
    }
}

/* Everything one explanation works with. */
struct rt_al {
    const rt_canon *old, *now;
    cix xo, xn;
    uint32_t *o2n, *n2o;       /* node pairing */
    ctype *to, *tn;            /* the entry's parameter types */
    uint32_t npo, npn;
    uint32_t *po2n, *pn2o;     /* parameter pairing */
    size_t cap_po, cap_pn;     /* sizes of to/po2n and tn/pn2o */
    bool have_ix;              /* xo and xn built */
};

/* The value of now that value va of old became, or NONE when it has no
 * counterpart (its op or parameter was removed or cannot be paired). */
static uint32_t map_value(const rt_al *al, uint32_t va)
{
    const rt_canon *old = al->old, *now = al->now;
    if (va >= old->n_vals)
        return NONE;
    uint32_t d = old->val_node[va];
    if (d != NONE) {
        uint32_t j = d < old->n_nodes ? al->o2n[d] : NONE;
        if (j == NONE || al->xn.firstval[j] == NONE)
            return NONE;
        uint32_t k = va - al->xo.firstval[d];
        return k < count_of(now, &now->nodes[j], RT_F_TYPES) ? al->xn.firstval[j] + k : NONE;
    }
    uint32_t fo = func_of_value(old, &al->xo, va);
    uint32_t fn = fo < old->n_nodes ? al->o2n[fo] : NONE;
    if (fn == NONE)
        return NONE;
    uint32_t base = old->nodes[fo].vbase, local = va - base;
    uint32_t npa = count_of(old, &old->nodes[fo], RT_F_TYPES), npb = count_of(now, &now->nodes[fn], RT_F_TYPES);
    if (local < npa) {
        if (old->nodes[fo].func == 0) {
            uint32_t p = local < al->npo ? al->po2n[local] : NONE;
            return p == NONE ? NONE : now->nodes[fn].vbase + p;
        }
        return local < npb ? now->nodes[fn].vbase + local : NONE;
    }
    /* a region argument: at the same distance from the last result before
     * it (or from the parameters) as in old */
    uint32_t u = va;
    while (u > base + npa && old->val_node[u - 1] == NONE)
        u--;
    uint32_t vb;
    if (u == base + npa) {
        vb = now->nodes[fn].vbase + npb + (va - u);
    } else {
        uint32_t mu = map_value(al, u - 1);
        if (mu == NONE)
            return NONE;
        vb = mu + 1 + (va - u);
    }
    return vb < now->n_vals && now->val_node[vb] == NONE ? vb : NONE;
}

/* True when value v of now is new: defined by an added op, an added
 * parameter, or a region of an added op. */
static bool value_is_new(const rt_al *al, uint32_t v)
{
    const rt_canon *now = al->now;
    if (v >= now->n_vals)
        return true;
    uint32_t d = now->val_node[v];
    if (d != NONE)
        return al->n2o[d] == NONE;
    uint32_t f = func_of_value(now, &al->xn, v);
    uint32_t local = v - now->nodes[f].vbase;
    if (now->nodes[f].func == 0 && local < al->npn)
        return al->pn2o[local] == NONE;
    return false;
}

/* Same for a value of old: it has no counterpart because what defined it
 * was removed. */
static bool value_is_gone(const rt_al *al, uint32_t v)
{
    return map_value(al, v) == NONE;
}

/* True when paired-so-far nodes i (old) and j (now) are the same op reading
 * the same values: same kind, attributes, value and operands through the
 * pairing (types may differ). */
static bool same_op_same_inputs(const rt_al *al, uint32_t i, uint32_t j)
{
    const rt_canon *a = al->old, *b = al->now;
    if (!same_kind(a, i, b, j))
        return false;
    const rt_canon_node *na = &a->nodes[i], *nb = &b->nodes[j];
    if (na->code == RT_NODE_FUNC || !field_eq(a, na, b, nb, RT_F_ATTRS) || !field_eq(a, na, b, nb, RT_F_VALUE))
        return false;
    uint32_t n = count_of(a, na, RT_F_OPERANDS);
    if (n != count_of(b, nb, RT_F_OPERANDS))
        return false;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t va = na->vbase + ld_u32(a->bytes + na->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
        uint32_t vb = nb->vbase + ld_u32(b->bytes + nb->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
        if (map_value(al, va) != vb)
            return false;
    }
    return true;
}

static bool align_nodes(rt_al *al, uint64_t max_cells)
{
    const rt_canon *a = al->old, *b = al->now;
    uint32_t *o2n = al->o2n, *n2o = al->n2o;
    uint32_t n = a->n_nodes, m = b->n_nodes;
    for (uint32_t i = 0; i < n; i++)
        o2n[i] = NONE;
    for (uint32_t j = 0; j < m; j++)
        n2o[j] = NONE;
    o2n[0] = 0;
    n2o[0] = 0;
    uint32_t p = 1, s = 0;
    while (p < n && p < m && same_op_same_inputs(al, p, p)) {
        o2n[p] = p;
        n2o[p] = p;
        p++;
    }
    while (s < n - p && s < m - p && pair_like(a, n - 1 - s, b, m - 1 - s)) {
        o2n[n - 1 - s] = m - 1 - s;
        n2o[m - 1 - s] = n - 1 - s;
        s++;
    }
    uint32_t nn = n - p - s, mm = m - p - s;
    if (nn == 0 || mm == 0)
        return true;
    if ((uint64_t)(nn + 1) * (mm + 1) > max_cells) {
        /* too large to align: by position, same-kind nodes paired */
        for (uint32_t k = 0; k < nn && k < mm; k++)
            if (same_kind(a, p + k, b, p + k)) {
                o2n[p + k] = p + k;
                n2o[p + k] = p + k;
            }
        return true;
    }
    size_t w = (size_t)mm + 1;
    uint32_t *S = plumb_calloc((size_t)(nn + 1) * w, sizeof *S);
    if (!S)
        return false;
    for (uint32_t x = 1; x <= nn; x++)
        for (uint32_t y = 1; y <= mm; y++) {
            uint32_t best = S[(x - 1) * w + y] > S[x * w + y - 1] ? S[(x - 1) * w + y] : S[x * w + y - 1];
            uint32_t pw = pair_weight(a, p + x - 1, b, p + y - 1);
            if (pw && S[(x - 1) * w + y - 1] + pw > best)
                best = S[(x - 1) * w + y - 1] + pw;
            S[x * w + y] = best;
        }
    for (uint32_t x = nn, y = mm; x > 0 && y > 0;) {
        uint32_t pw = pair_weight(a, p + x - 1, b, p + y - 1);
        if (pw && S[x * w + y] == S[(x - 1) * w + y - 1] + pw) {
            o2n[p + x - 1] = p + y - 1;
            n2o[p + y - 1] = p + x - 1;
            x--;
            y--;
        } else if (S[x * w + y] == S[(x - 1) * w + y]) {
            x--;
        } else {
            y--;
        }
    }
    plumb_free(S, (size_t)(nn + 1) * w * sizeof *S);
    return true;
}

static void al_fini(rt_al *al)
{
    size_t no = al->old->n_nodes ? al->old->n_nodes : 1, nn = al->now->n_nodes ? al->now->n_nodes : 1;
    if (al->have_ix) {
        cix_free(&al->xo, al->old);
        cix_free(&al->xn, al->now);
    }
    if (al->o2n)
        plumb_free(al->o2n, no * sizeof *al->o2n);
    if (al->n2o)
        plumb_free(al->n2o, nn * sizeof *al->n2o);
    if (al->to)
        plumb_free(al->to, al->cap_po * sizeof *al->to);
    if (al->tn)
        plumb_free(al->tn, al->cap_pn * sizeof *al->tn);
    if (al->po2n)
        plumb_free(al->po2n, al->cap_po * sizeof *al->po2n);
    if (al->pn2o)
        plumb_free(al->pn2o, al->cap_pn * sizeof *al->pn2o);
    memset(al, 0, sizeof *al);
}

/* Aligns now with old (parameters, then nodes); false (al freed) when out
 * of memory or when either is not a serialized entry. */
static bool al_init(rt_al *al, const rt_canon *old, const rt_canon *now, uint64_t max_cells)
{
    memset(al, 0, sizeof *al);
    al->old = old;
    al->now = now;
    if (old->n_nodes == 0 || now->n_nodes == 0 || old->nodes[0].code != RT_NODE_FUNC ||
        now->nodes[0].code != RT_NODE_FUNC)
        return false;
    size_t no = old->n_nodes, nn = now->n_nodes;
    /* the entries' parameter counts (node 0 is the entry's signature) */
    size_t cpo = count_of(old, &old->nodes[0], RT_F_TYPES), cpn = count_of(now, &now->nodes[0], RT_F_TYPES);
    al->cap_po = cpo ? cpo : 1;
    al->cap_pn = cpn ? cpn : 1;
    al->o2n = plumb_malloc(no * sizeof *al->o2n);
    al->n2o = plumb_malloc(nn * sizeof *al->n2o);
    al->to = plumb_calloc(al->cap_po, sizeof *al->to);
    al->tn = plumb_calloc(al->cap_pn, sizeof *al->tn);
    al->po2n = plumb_malloc(al->cap_po * sizeof *al->po2n);
    al->pn2o = plumb_malloc(al->cap_pn * sizeof *al->pn2o);
    if (!al->o2n || !al->n2o || !al->to || !al->tn || !al->po2n || !al->pn2o)
        goto out_fail;
    if (!cix_build(&al->xo, old))
        goto out_fail;
    if (!cix_build(&al->xn, now)) {
        cix_free(&al->xo, old);
        goto out_fail;
    }
    al->have_ix = true;
    al->npo = read_params(old, &old->nodes[0], al->to, (uint32_t)al->cap_po);
    al->npn = read_params(now, &now->nodes[0], al->tn, (uint32_t)al->cap_pn);
    align_params(old, al->to, al->npo, now, al->tn, al->npn, al->po2n, al->pn2o);
    if (!align_nodes(al, max_cells))
        goto out_fail;
    return true;
out_fail:
    al_fini(al);
    return false;
}

/* "node 5 (%live)" / "parameter 2 (%doc_ids)" for value v of c. */
static void value_str(char *out, size_t cap, const rt_canon *c, const cix *x, uint32_t v)
{
    char nm[128];
    uint32_t d = v < c->n_vals ? c->val_node[v] : NONE;
    if (d != NONE) {
        name_str(nm, sizeof nm, names_of(c, &c->nodes[d]));
        snprintf(out, cap, "node %u%s%s%s", d, *nm ? " (" : "", nm, *nm ? ")" : "");
        return;
    }
    uint32_t f = func_of_value(c, x, v);
    uint32_t local = v - c->nodes[f].vbase;
    if (local < count_of(c, &c->nodes[f], RT_F_TYPES)) {
        name_str(nm, sizeof nm, param_name_of(c, &c->nodes[f], local));
        snprintf(out, cap, "parameter %u%s%s%s", local, *nm ? " (" : "", nm, *nm ? ")" : "");
    } else {
        snprintf(out, cap, "a region argument");
    }
}

/* One difference (of a paired couple of nodes, or a node or parameter only
 * one program has). */
typedef struct rt_diff {
    rt_diff_class cls;
    uint32_t node;             /* where it is reported (in the new program, or the old one's for a removal) */
    uint32_t operand;          /* NONE = none */
    uint32_t param;            /* a parameter's index, NONE = none */
    const rt_canon_node *at;   /* the node reported, NULL for the context */
    bool at_old;               /* at is in the old program (a removed op or parameter) */
    char field[16];
    char name[128];            /* the op's result or the parameter as the program names it */
    bool name_shown;           /* the description already says it (an added or removed op or parameter) */
    char what[1024];
    char hint[600];
    char old_s[64], new_s[64];
} rt_diff;

static const rt_diff zero_diff = {.operand = NONE, .param = NONE};

/* The differences of paired nodes i (old) and j (now) other than the entry
 * signature; one per node, in the order a change propagates: attributes
 * and constants (where a shape or value starts), operands, regions, then
 * result types. *consequence: the only difference is a result type that
 * follows from an operand's (not listed). *renumbered: an operand reads a
 * value that is new or whose old counterpart is gone (follows from an
 * insertion or a removal; not listed). */
static bool describe_pair(const rt_al *al, uint32_t i, uint32_t j, const bool *changed, const bool *pchanged,
                          rt_diff *df, bool *consequence, bool *renumbered)
{
    const rt_canon *old = al->old, *now = al->now;
    const rt_canon_node *a = &old->nodes[i], *b = &now->nodes[j];
    *consequence = *renumbered = false;
    df->at = b;
    df->node = j;
    name_str(df->name, sizeof df->name, names_of(now, b));
    if (a->code == RT_NODE_FUNC) {
        if (field_eq(old, a, now, b, RT_F_TYPES))
            return false;
        types_diff(old->bytes + a->off[RT_F_TYPES], a->len[RT_F_TYPES], now->bytes + b->off[RT_F_TYPES],
                   b->len[RT_F_TYPES], true, df->what, sizeof df->what);
        df->cls = RT_DIFF_STRUCTURE;   /* a called function's signature */
        snprintf(df->field, sizeof df->field, "signature");
        return true;
    }
    if (!field_eq(old, a, now, b, RT_F_ATTRS)) {
        df->cls = RT_DIFF_ATTR;
        snprintf(df->field, sizeof df->field, "attribute");
        attrs_diff(old->bytes + a->off[RT_F_ATTRS], a->len[RT_F_ATTRS], now->bytes + b->off[RT_F_ATTRS],
                   b->len[RT_F_ATTRS], df->what, sizeof df->what);
        return true;
    }
    if (!field_eq(old, a, now, b, RT_F_VALUE)) {
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
            /* the name is the constant's: the operand it is */
            snprintf(df->what, sizeof df->what, "%s (defined by node %u)", v, j);
        } else {
            snprintf(df->what, sizeof df->what, "%s", v);
        }
        return true;
    }
    uint32_t na = count_of(old, a, RT_F_OPERANDS), nb = count_of(now, b, RT_F_OPERANDS);
    if (na != nb) {
        df->cls = RT_DIFF_STRUCTURE;
        snprintf(df->field, sizeof df->field, "operands");
        snprintf(df->what, sizeof df->what, "operand count %u became %u", na, nb);
        return true;
    }
    for (uint32_t k = 0; k < na; k++) {
        uint32_t va = a->vbase + ld_u32(old->bytes + a->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
        uint32_t vb = b->vbase + ld_u32(now->bytes + b->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
        uint32_t mapped = map_value(al, va);
        if (mapped == vb)
            continue;
        if (value_is_new(al, vb) || value_is_gone(al, va)) {
            *renumbered = true;
            continue;
        }
        df->cls = RT_DIFF_STRUCTURE;
        df->operand = k;
        snprintf(df->field, sizeof df->field, "operands");
        char sa[200], sb[200];
        value_str(sa, sizeof sa, old, &al->xo, va);
        value_str(sb, sizeof sb, now, &al->xn, vb);
        snprintf(df->what, sizeof df->what, "now reads %s instead of %s (of the cached program)", sb, sa);
        return true;
    }
    if (!field_eq(old, a, now, b, RT_F_REGIONS)) {
        df->cls = RT_DIFF_STRUCTURE;
        snprintf(df->field, sizeof df->field, "region");
        snprintf(df->what, sizeof df->what, "region arguments changed");
        return true;
    }
    if (field_eq(old, a, now, b, RT_F_TYPES))
        return false;
    df->cls = types_diff(old->bytes + a->off[RT_F_TYPES], a->len[RT_F_TYPES], now->bytes + b->off[RT_F_TYPES],
                         b->len[RT_F_TYPES], false, df->what, sizeof df->what);
    snprintf(df->field, sizeof df->field, "type");
    /* a result type that follows from an operand whose type or value changed */
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t v = b->vbase + ld_u32(now->bytes + b->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
        if (v >= now->n_vals)
            continue;
        uint32_t d = now->val_node[v];
        if (d != NONE ? changed[d] : value_is_new(al, v) || (pchanged && v - now->nodes[0].vbase < al->npn &&
                                                               func_of_value(now, &al->xn, v) == 0 &&
                                                               pchanged[v - now->nodes[0].vbase]))
            *consequence = true;
    }
    return true;
}

static void set_hint(rt_diff *df, const char *h)
{
    if (!df->hint[0])
        snprintf(df->hint, sizeof df->hint, "%s", h);
}

/* The hint for parameter p (named nm) whose type went from ta to tb: a
 * static size that varies is what the runtime's bounded '?' dimensions
 * compile once for (docs/spec/dynamic.md). */
static void param_hint(rt_diff *df, const ctype *ta, const ctype *tb, const char *nm, uint32_t p)
{
    char who[160];
    if (*nm)
        snprintf(who, sizeof who, "%s", nm);
    else
        snprintf(who, sizeof who, "parameter %u", p);
    if (ta->dtype != tb->dtype) {
        set_hint(df, "element type; convert at the boundary so every call uses one type");
        return;
    }
    if (ta->rank == tb->rank) {
        for (uint32_t d = 0; d < ta->rank; d++) {
            if (ta->dims[d] == tb->dims[d] && ta->bounds[d] == tb->bounds[d])
                continue;
            if (ta->dims[d] >= 0 && tb->dims[d] >= 0) {
                int64_t hi = ta->dims[d] > tb->dims[d] ? ta->dims[d] : tb->dims[d];
                snprintf(df->hint, sizeof df->hint,
                         "static dimension; declare dimension %u of %s as ? with #stablehlo.bounds<N> (N at least %" PRId64
                         ", the largest size it takes): the runtime compiles it once for every size up to N "
                         "(an op that needs the size statically, such as iota, has a dynamic_ form; "
                         "docs/spec/dynamic.md)",
                         d, who, hi);
                return;
            }
            if (ta->dims[d] < 0 && tb->dims[d] < 0) {
                snprintf(df->hint, sizeof df->hint,
                         "bound of a ? dimension; keep one bound (the largest) for dimension %u of %s in every call", d,
                         who);
                return;
            }
            snprintf(df->hint, sizeof df->hint,
                     "dimension %u of %s is static in one program and ? in the other; declare it ? (bounded) in every call",
                     d, who);
            return;
        }
    }
    set_hint(df, "entry signature; keep the rank of each parameter fixed (pad to one shape, masking the padding)");
}

static const char *hint(rt_diff_class c)
{
    switch (c) {
    case RT_DIFF_CONSTANT: return "baked constant; pass it as a parameter";
    case RT_DIFF_DIM: return "static dimension; pad to a fixed size or bucket (masking the padding)";
    case RT_DIFF_DTYPE: return "element type; convert at the boundary so every call uses one type";
    case RT_DIFF_ATTR: return "attribute; keep it fixed across calls or compute it from an input";
    case RT_DIFF_STRUCTURE: return "structure; keep optional paths always present and select them with masks";
    case RT_DIFF_SIGNATURE: return "entry signature; keep every parameter present with one type";
    case RT_DIFF_CONTEXT: return "runtime version, CPU features or compile options changed";
    case RT_DIFF_NONE: break;
    }
    return "";
}

/* Cells of the alignment table when choosing the nearest cached program
 * (done once per cached program on every recompile) and when explaining
 * against it (once). */
#define RT_DISTANCE_MAX_CELLS (1u << 16)
#define RT_EXPLAIN_MAX_CELLS (1u << 21)

uint32_t rt_canon_distance(const rt_canon *a, const rt_canon *b)
{
    /* nodes left unpaired plus paired nodes that differ in more than where
     * their operands come from, plus the parameters that differ; by
     * position when they cannot be aligned */
    rt_al al;
    uint32_t d = 0;
    if (al_init(&al, a, b, RT_DISTANCE_MAX_CELLS)) {
        for (uint32_t i = 1; i < a->n_nodes; i++)
            if (al.o2n[i] == NONE)
                d++;
        for (uint32_t j = 1; j < b->n_nodes; j++)
            if (al.n2o[j] == NONE || !pair_like(a, al.n2o[j], b, j))
                d++;
        for (uint32_t p = 0; p < al.npn; p++)
            if (al.pn2o[p] == NONE || al.pn2o[p] != p || !ctype_eq(&al.to[al.pn2o[p]], &al.tn[p]))
                d++;
        for (uint32_t q = 0; q < al.npo; q++)
            if (al.po2n[q] == NONE)
                d++;
        al_fini(&al);
    } else {
        uint32_t n = a->n_nodes < b->n_nodes ? a->n_nodes : b->n_nodes;
        d = a->n_nodes > b->n_nodes ? a->n_nodes - b->n_nodes : b->n_nodes - a->n_nodes;
        for (uint32_t i = 0; i < n; i++)
            if (!node_eq(a, i, b, i))
                d++;
    }
    return d;
}

#define RT_MAX_DIFFS 64

static void diff_text(plumb_buf *b, const rt_diff *df, const rt_canon *old, const rt_canon *now)
{
    const rt_canon *in = df->at_old ? old : now;
    if (df->at) {
        plumb_buf_printf(b, "node %u %s", df->node, op_name(df->at->code));
        if (df->operand != NONE)
            plumb_buf_printf(b, " operand %u", df->operand);
        plumb_buf_puts(b, ": ");
    }
    plumb_buf_printf(b, "%s (%s)", df->what, df->hint[0] ? df->hint : hint(df->cls));
    if (df->at && df->at->loc.line)
        plumb_buf_printf(b, " at %s:%u:%u", in->file ? in->file : "<module>", df->at->loc.line, df->at->loc.col);
    if (df->at && df->at->origin && df->param == NONE)
        plumb_buf_printf(b, " (from %s)", in->origins + df->at->origin - 1);
    /* the value as the program names it (a changed constant, the op's
     * result, the parameter), unless the description says it */
    if (df->name[0] && !df->name_shown)
        plumb_buf_printf(b, ", value %s", df->name);
}

static void diff_json(plumb_buf *b, const rt_diff *df, const rt_canon *old, const rt_canon *now)
{
    const rt_canon *in = df->at_old ? old : now;
    plumb_buf_printf(b, "\"class\": \"%s\", \"node\": %u", rt_diff_class_name(df->cls), df->node);
    plumb_buf_puts(b, ", \"op\": ");
    plumb_json_str_append(b, df->at ? op_name(df->at->code) : "");
    if (df->operand != NONE)
        plumb_buf_printf(b, ", \"operand\": %u", df->operand);
    if (df->param != NONE)
        plumb_buf_printf(b, ", \"parameter\": %u", df->param);
    if (df->name[0]) {
        plumb_buf_puts(b, ", \"name\": ");
        plumb_json_str_append(b, df->name);
    }
    if (df->at_old)
        plumb_buf_puts(b, ", \"in\": \"cached\"");
    plumb_buf_puts(b, ", \"field\": ");
    plumb_json_str_append(b, df->field);
    plumb_buf_puts(b, ", \"what\": ");
    plumb_json_str_append(b, df->what);
    if (df->old_s[0]) {
        plumb_buf_puts(b, ", \"old\": ");
        plumb_json_str_append(b, df->old_s);
        plumb_buf_puts(b, ", \"new\": ");
        plumb_json_str_append(b, df->new_s);
    }
    plumb_buf_puts(b, ", \"hint\": ");
    plumb_json_str_append(b, df->hint[0] ? df->hint : hint(df->cls));
    if (df->at && df->at->loc.line) {
        plumb_buf_puts(b, ", \"file\": ");
        plumb_json_str_append(b, in->file ? in->file : "");
        plumb_buf_printf(b, ", \"line\": %u, \"col\": %u", df->at->loc.line, df->at->loc.col);
    }
    if (df->at && df->at->origin && df->param == NONE) {
        plumb_buf_puts(b, ", \"from\": ");
        plumb_json_str_append(b, in->origins + df->at->origin - 1);
    }
}

/* Where the changed node d of now got its change: d itself when a
 * difference is listed there (own[d]) or it was added, else the first
 * changed operand's origin; a changed parameter as NONE - 1 - p. NONE when
 * nothing is found. */
static uint32_t origin_of(const rt_al *al, uint32_t d, const bool *own, const bool *changed, const bool *pchanged)
{
    const rt_canon *now = al->now;
    for (int steps = 0; steps < 4096 && d < now->n_nodes; steps++) {
        if (own[d] || al->n2o[d] == NONE)
            return d;
        const rt_canon_node *u = &now->nodes[d];
        uint32_t n = count_of(now, u, RT_F_OPERANDS), next = NONE;
        for (uint32_t k = 0; k < n && next == NONE; k++) {
            uint32_t v = u->vbase + ld_u32(now->bytes + u->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
            if (v >= now->n_vals)
                continue;
            uint32_t def = now->val_node[v];
            if (def != NONE && changed[def]) {
                next = def;
            } else if (def == NONE && func_of_value(now, &al->xn, v) == 0) {
                uint32_t p = v - now->nodes[0].vbase;
                if (p < al->npn && pchanged[p])
                    return NONE - 1 - p;
            }
        }
        if (next == NONE)
            return NONE;
        d = next;
    }
    return NONE;
}

static void push(rt_diff *diffs, uint32_t *n, uint32_t *dropped, const rt_diff *df)
{
    if (*n < RT_MAX_DIFFS)
        diffs[(*n)++] = *df;
    else
        (*dropped)++;
}

rt_diff_class rt_explain(const rt_canon *old, const rt_canon *now, const char *entry, uint32_t program,
                         uint32_t nearest, char *line, size_t line_cap, char *json, size_t json_cap)
{
    /* The programs are aligned structurally (align_nodes, align_params),
     * then every difference is listed: parameters added, removed or
     * retyped (by name); ops added or removed (an op inside an added or
     * removed op's region is part of it); for paired ops the first of
     * attribute, constant, rewired operand, region, result type. Not
     * listed: an operand that reads an added value or one whose definition
     * was removed (the insertion is what is listed), and a result type that
     * follows from an operand's change (its origin is listed). */
    rt_al al;
    size_t nn = now->n_nodes ? now->n_nodes : 1;
    rt_diff *diffs = plumb_calloc(RT_MAX_DIFFS, sizeof *diffs);
    bool *changed = plumb_calloc(nn, sizeof *changed);
    bool *own = plumb_calloc(nn, sizeof *own);
    bool *pchanged = NULL;
    bool aligned = false;
    uint32_t n_diffs = 0, dropped = 0, derived = 0, differing = 0;
    rt_diff_class first = RT_DIFF_CONTEXT;
    if (diffs && changed && own)
        aligned = al_init(&al, old, now, RT_EXPLAIN_MAX_CELLS);
    if (aligned)
        pchanged = plumb_calloc(al.cap_pn, sizeof *pchanged);
    if (!pchanged) {
        snprintf(line, line_cap, "recompile of @%s (program %u): out of memory explaining it", entry, program);
        snprintf(json, json_cap, "{\"entry\": \"?\", \"program\": %u, \"class\": \"context\", \"truncated\": true}",
                 program);
        goto out;
    }

    /* parameters */
    bool sig = false;
    for (uint32_t p = 0; p < al.npn; p++) {
        rt_diff df = zero_diff;
        df.cls = RT_DIFF_SIGNATURE;
        df.at = &now->nodes[0];
        df.param = p;
        snprintf(df.field, sizeof df.field, "parameter");
        name_str(df.name, sizeof df.name, param_name_of(now, &now->nodes[0], p));
        char ts[256];
        uint32_t q = al.pn2o[p];
        if (q == NONE) {
            type_str(ts, sizeof ts, &al.tn[p]);
            snprintf(df.what, sizeof df.what, "parameter %u %s%s%s added", p, df.name, *df.name ? ": " : "", ts);
            df.name_shown = true;
            snprintf(df.hint, sizeof df.hint,
                     "parameter added; keep optional inputs always present (fixed shape and type, with a presence "
                     "flag that selects them by mask)");
        } else if (!ctype_eq(&al.to[q], &al.tn[p])) {
            char ch[700], moved[64] = "";
            type_change(&al.to[q], &al.tn[p], ch, sizeof ch);
            if (q != p)
                snprintf(moved, sizeof moved, " (parameter %u of the cached program)", q);
            snprintf(df.what, sizeof df.what, "parameter %u %s%s", p, ch, moved);
            param_hint(&df, &al.to[q], &al.tn[p], df.name, p);
        } else if (q != p) {
            /* the same parameter at another place: the signature differs */
            snprintf(df.what, sizeof df.what, "parameter %u %s%swas parameter %u of the cached program (moved)", p,
                     df.name, *df.name ? " " : "", q);
            snprintf(df.hint, sizeof df.hint, "entry signature; pass the parameters in one order in every call");
            df.name_shown = true;
        } else {
            continue;
        }
        pchanged[p] = true;
        sig = true;
        push(diffs, &n_diffs, &dropped, &df);
    }
    for (uint32_t q = 0; q < al.npo; q++) {
        if (al.po2n[q] != NONE)
            continue;
        rt_diff df = zero_diff;
        df.cls = RT_DIFF_SIGNATURE;
        df.at = &old->nodes[0];
        df.at_old = true;
        df.param = q;
        snprintf(df.field, sizeof df.field, "parameter");
        name_str(df.name, sizeof df.name, param_name_of(old, &old->nodes[0], q));
        char ts[256];
        type_str(ts, sizeof ts, &al.to[q]);
        snprintf(df.what, sizeof df.what, "parameter %u %s%s%s of the cached program removed", q, df.name,
                 *df.name ? ": " : "", ts);
        df.name_shown = true;
        snprintf(df.hint, sizeof df.hint,
                 "parameter removed; keep optional inputs always present (fixed shape and type, with a presence flag "
                 "that selects them by mask)");
        sig = true;
        push(diffs, &n_diffs, &dropped, &df);
    }

    /* ops of now, in order */
    for (uint32_t j = 1; j < now->n_nodes; j++) {
        rt_diff df = zero_diff;
        uint32_t i = al.n2o[j];
        if (i == NONE) {
            changed[j] = true;
            differing++;
            uint32_t par = al.xn.parent[j];
            if (par != NONE && al.n2o[par] == NONE)
                continue;   /* part of an added op */
            df.cls = RT_DIFF_STRUCTURE;
            df.at = &now->nodes[j];
            df.node = j;
            snprintf(df.field, sizeof df.field, "op");
            name_str(df.name, sizeof df.name, names_of(now, &now->nodes[j]));
            snprintf(df.what, sizeof df.what, "%s added%s%s%s", op_name(now->nodes[j].code), *df.name ? " (" : "",
                     df.name, *df.name ? ")" : "");
            df.name_shown = true;
            own[j] = true;
            push(diffs, &n_diffs, &dropped, &df);
            continue;
        }
        bool consequence, renumbered;
        if (!describe_pair(&al, i, j, changed, pchanged, &df, &consequence, &renumbered)) {
            if (renumbered)
                derived++;
            continue;
        }
        changed[j] = true;
        differing++;
        if (consequence) {
            derived++;
            continue;
        }
        own[j] = true;   /* a constant is the origin even though it is reported at its consumer */
        push(diffs, &n_diffs, &dropped, &df);
    }
    /* ops of old that have no counterpart */
    for (uint32_t i = 1; i < old->n_nodes; i++) {
        if (al.o2n[i] != NONE)
            continue;
        differing++;
        uint32_t par = al.xo.parent[i];
        if (par != NONE && al.o2n[par] == NONE)
            continue;   /* part of a removed op */
        rt_diff df = zero_diff;
        df.cls = RT_DIFF_STRUCTURE;
        df.at = &old->nodes[i];
        df.at_old = true;
        df.node = i;
        snprintf(df.field, sizeof df.field, "op");
        name_str(df.name, sizeof df.name, names_of(old, &old->nodes[i]));
        snprintf(df.what, sizeof df.what, "%s removed (node %u of the cached program%s%s)", op_name(old->nodes[i].code),
                 i, *df.name ? ", " : "", df.name);
        df.name_shown = true;
        push(diffs, &n_diffs, &dropped, &df);
    }

    /* the entry's results, each traced to where its change comes from */
    {
        const rt_canon_node *fa = &old->nodes[0], *fb = &now->nodes[0];
        const uint8_t *pa = old->bytes + fa->off[RT_F_TYPES], *ea = pa + fa->len[RT_F_TYPES];
        const uint8_t *pb = now->bytes + fb->off[RT_F_TYPES], *eb = pb + fb->len[RT_F_TYPES];
        ctype t;
        bool ok = ea - pa >= 4 && eb - pb >= 4;
        uint32_t na = ok ? ld_u32(pa) : 0, nb = ok ? ld_u32(pb) : 0;
        pa += 4;
        pb += 4;
        for (uint32_t k = 0; ok && k < na; k++)
            ok = rd_type(&pa, ea, &t);
        for (uint32_t k = 0; ok && k < nb; k++)
            ok = rd_type(&pb, eb, &t);
        /* the entry's return: the last op at depth 0 of function 0 */
        uint32_t ret = NONE;
        for (uint32_t j = 1; j < now->n_nodes && now->nodes[j].func == 0; j++)
            if (now->nodes[j].depth == 0)
                ret = j;
        if (ok && ea - pa >= 4 && eb - pb >= 4) {
            uint32_t ra = ld_u32(pa), rb = ld_u32(pb);
            pa += 4;
            pb += 4;
            for (uint32_t k = 0; k < ra || k < rb; k++) {
                ctype ta, tb;
                bool ha = k < ra && rd_type(&pa, ea, &ta), hb = k < rb && rd_type(&pb, eb, &tb);
                if (ha && hb && ctype_eq(&ta, &tb))
                    continue;
                rt_diff df = zero_diff;
                df.cls = RT_DIFF_SIGNATURE;
                df.at = fb;
                snprintf(df.field, sizeof df.field, "result");
                char ch[700];
                if (ha && hb) {
                    type_change(&ta, &tb, ch, sizeof ch);
                    snprintf(df.what, sizeof df.what, "result %u %s", k, ch);
                } else {
                    snprintf(df.what, sizeof df.what, "result count %u became %u", ra, rb);
                    k = ra > rb ? ra : rb;
                }
                sig = true;
                uint32_t org = NONE;
                if (ha && hb && ret != NONE && k < count_of(now, &now->nodes[ret], RT_F_OPERANDS)) {
                    const rt_canon_node *r = &now->nodes[ret];
                    uint32_t v = r->vbase + ld_u32(now->bytes + r->off[RT_F_OPERANDS] + 4 + 4 * (size_t)k);
                    uint32_t d = v < now->n_vals ? now->val_node[v] : NONE;
                    if (d != NONE)
                        org = changed[d] ? origin_of(&al, d, own, changed, pchanged) : NONE;
                    else if (func_of_value(now, &al.xn, v) == 0 && v - fb->vbase < al.npn && pchanged[v - fb->vbase])
                        org = NONE - 1 - (v - fb->vbase);
                }
                size_t at = strlen(df.what);
                if (org != NONE && org >= now->n_nodes) {
                    uint32_t p = NONE - 1 - org;
                    char nm[128];
                    name_str(nm, sizeof nm, param_name_of(now, fb, p));
                    snprintf(df.what + at, sizeof df.what - at, ", follows from parameter %u%s%s", p, *nm ? " " : "", nm);
                    snprintf(df.hint, sizeof df.hint, "follows from the parameter; fixed where that is");
                } else if (org != NONE) {
                    char nm[128];
                    name_str(nm, sizeof nm, names_of(now, &now->nodes[org]));
                    snprintf(df.what + at, sizeof df.what - at, ", follows from node %u %s%s%s", org,
                             op_name(now->nodes[org].code), *nm ? " " : "", nm);
                    snprintf(df.hint, sizeof df.hint, "follows from node %u; fixed where that is", org);
                }
                push(diffs, &n_diffs, &dropped, &df);
            }
        }
    }
    if (sig)
        differing++;

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
    plumb_buf_printf(&b, "; nearest cached program %u, %u of %u nodes differ", nearest, differing, now->n_nodes);
    snprintf(line, line_cap, "%s", b.data && !b.failed ? b.data : "recompile (out of memory describing it)");
    plumb_buf_free(&b);

    /* JSON: the first difference's fields at the top level (as before), then
     * every difference and the count per cause. */
    plumb_buf_init(&b);
    plumb_buf_puts(&b, "{\"entry\": ");
    plumb_json_str_append(&b, entry);
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
                     dropped, derived, differing, now->n_nodes);
    /* a truncated object would not parse: fall back to the summary alone */
    if (b.data && !b.failed && b.len < json_cap)
        snprintf(json, json_cap, "%s", b.data);
    else
        snprintf(json, json_cap, "{\"entry\": \"?\", \"program\": %u, \"class\": \"%s\", \"truncated\": true}", program,
                 rt_diff_class_name(first));
    plumb_buf_free(&b);
out:
    if (pchanged)
        plumb_free(pchanged, al.cap_pn * sizeof *pchanged);
    if (aligned)
        al_fini(&al);
    if (diffs)
        plumb_free(diffs, RT_MAX_DIFFS * sizeof *diffs);
    if (changed)
        plumb_free(changed, nn * sizeof *changed);
    if (own)
        plumb_free(own, nn * sizeof *own);
    return first;
}
