/* Pair folds: reduces of (value, index) pairs whose body selects one of
 * the two candidates, as jax lowers argmax/argmin (and variants: NaN
 * checks or none, compare types, argument orders).
 *
 * Recognition is by evaluation, not by pattern. The body must be a straight
 * line of compares whose operands are both value arguments or both index
 * arguments of the block, and/or/xor/not/select on i1, and two returned
 * selects (or arguments) that choose between the two values and between
 * the two indices. Such a body's choice (acc or element, for the value and
 * for the index separately) depends only on the outcome of its compares,
 * and so only on the "order type" of the value pair (which are NaN; their
 * order as numbers; their order in IEEE totalOrder) and of the index pair
 * (order as signed and as unsigned integers): codes af_vcode/af_icode.
 * The body is run once, through the runtime's elementwise kernels (the
 * semantics every other path of a reduce uses), over every pair of
 * representative values (both NaN signs with two payloads each, -inf, -1,
 * -0, +0, 1, +inf; integers MIN, -1, 0, 1, MAX) and every pair of
 * representative indices (MIN, -1, 0, 1, MAX), which realise every code;
 * the choices fill a table indexed by the two codes (two lanes with one
 * code that disagree reject the body). The table is then the body, for any
 * values.
 *
 * The fast fold applies when the table satisfies, for values that are not
 * NaN (floats) under one direction d (max or min):
 *   (1) values that differ as numbers: the one better under d is chosen,
 *       value and index alike, whatever the indices;
 *   (2) identical values: the lower index (the index type's own order) is
 *       chosen; equal indices either.
 * Pairs involving NaN, and -0 against +0, may do anything. Claim: if no
 * value of a slice (init included) is NaN and its best value M under d is
 * not zero, the reference's fold (init first, then the reduced elements in
 * row-major order) returns M's bits and the least index among the pairs
 * whose value equals M. By induction over the fold: the accumulator's value
 * always equals the prefix's best as a number; once that best is not zero
 * the accumulator is exactly (best, least index with that value), since a
 * better element replaces both by (1), a worse one changes nothing by (1),
 * and an equal one has the same bits (non-zero floats and integers have
 * one encoding per value) and keeps the lower index by (2); a zero best
 * keeps a zero value whatever the table does, and the first non-zero
 * better element resets both. The result depends on the set of pairs only,
 * not on their order, so it is computed in any order: a vector maximum (or
 * minimum) of the slice and the init, then the least index among the
 * positions equal to it. A slice with a NaN (or init NaN) or a zero best
 * runs the table sequentially in the reference's order instead
 * (af_seq), which is exact for every body of the class, NaN rules and -0
 * against +0 included.
 *
 * Layout: [outer, len, inner] (kept, reduced, kept; size-1 dims merged);
 * rows (inner = 1) take the vector loops, columns (inner > 1) fold strips
 * of AF_STRIP columns row after row. Other layouts keep the generic path. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "plumb/dtype.h"
#include "plumb/fp8.h"
#include "rt_argfold.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AF_X86 1
#else
#define AF_X86 0
#endif

#define AF_VCODES 48u
#define AF_ICODES 9u
#define AF_SEEN 1u
#define AF_VELEM 2u    /* the value result is the element's */
#define AF_IELEM 4u    /* the index result is the element's */
#define AF_VKNOWN 8u
#define AF_IKNOWN 16u
#define AF_STRIP 256u
#define AF_MAX_VALS 48u

static uint64_t af_runs_n, af_seq_n, af_gen_n, af_genfb_n, af_one_n;

uint64_t rt_argfold_runs(void) { return __atomic_load_n(&af_runs_n, __ATOMIC_RELAXED); }
uint64_t rt_argfold_sequential(void) { return __atomic_load_n(&af_seq_n, __ATOMIC_RELAXED); }
uint64_t rt_argfold_generated(void) { return __atomic_load_n(&af_gen_n, __ATOMIC_RELAXED); }
uint64_t rt_argfold_materialized(void) { return __atomic_load_n(&af_genfb_n, __ATOMIC_RELAXED); }
uint64_t rt_argfold_onepass(void) { return __atomic_load_n(&af_one_n, __ATOMIC_RELAXED); }

typedef enum af_vk { AV_F32, AV_F64, AV_F16, AV_BF16, AV_S8, AV_S16, AV_S32, AV_S64, AV_U8, AV_U16, AV_U32, AV_U64 } af_vk;

typedef struct af_plan {
    plumb_dtype vt, it;
    af_vk vk;
    bool fl, vsig, isig, max;
    unsigned vbits, ibits;
    uint8_t tab[AF_VCODES][AF_ICODES];
    const unsigned char *v, *ix;
    void *ov, *oi;
    uint64_t vinit, iinit;
    unsigned char vinit_raw[8];
    bool init_nan;
    uint64_t O, L, I, nstrip;
    /* gen: the indices are an iota's, generated: the index of flat
     * element off is (off / gs) % gd in the index type (low bits kept);
     * gmono: non-decreasing in the reduced order of every slice, so the
     * first position holding the best has the least index */
    bool gen, gmono;
    uint64_t gs, gd;
    plumb_isa isa;
    bool failed;
} af_plan;

static bool af_value_kind(plumb_dtype t, af_vk *k)
{
    switch (t) {
    case PLUMB_F32: *k = AV_F32; return true;
    case PLUMB_F64: *k = AV_F64; return true;
    case PLUMB_F16: *k = AV_F16; return true;
    case PLUMB_BF16: *k = AV_BF16; return true;
    case PLUMB_I8: *k = AV_S8; return true;
    case PLUMB_I16: *k = AV_S16; return true;
    case PLUMB_I32: *k = AV_S32; return true;
    case PLUMB_I64: *k = AV_S64; return true;
    case PLUMB_UI8: *k = AV_U8; return true;
    case PLUMB_UI16: *k = AV_U16; return true;
    case PLUMB_UI32: *k = AV_U32; return true;
    case PLUMB_UI64: *k = AV_U64; return true;
    default: return false;
    }
}

static bool af_index_type(plumb_dtype t)
{
    return t == PLUMB_I8 || t == PLUMB_I16 || t == PLUMB_I32 || t == PLUMB_I64 || t == PLUMB_UI8 ||
           t == PLUMB_UI16 || t == PLUMB_UI32 || t == PLUMB_UI64;
}

/* ---- codes -------------------------------------------------------------------------- */

static inline uint64_t af_mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

static inline int64_t af_sext(uint64_t b, unsigned w)
{
    b &= af_mask(w);
    uint64_t s = 1ull << (w - 1);
    return (int64_t)((b ^ s) - s);   /* two's complement of w bits, as int64 */
}

static inline unsigned af_rel_s(int64_t a, int64_t b) { return a < b ? 0u : a == b ? 1u : 2u; }
static inline unsigned af_rel_u(uint64_t a, uint64_t b) { return a < b ? 0u : a == b ? 1u : 2u; }

static double af_fval(af_vk k, uint64_t b)
{
    switch (k) {
    case AV_F32: return plumb_f32_from_bits((uint32_t)b);
    case AV_F64: return plumb_f64_from_bits(b);
    case AV_F16: return plumb_f16_to_f64((uint16_t)b);
    default: return plumb_f32_from_bits((uint32_t)(b & 0xffffu) << 16);
    }
}

/* IEEE totalOrder as a signed key: negative patterns mirrored below zero
 * (-0 -> -1 < +0 -> 0, -NaN lowest, +NaN highest, payloads ordered). */
static inline int64_t af_tkey(uint64_t b, unsigned w)
{
    b &= af_mask(w);
    uint64_t s = 1ull << (w - 1);
    return (b & s) ? -(int64_t)(b & (s - 1)) - 1 : (int64_t)b;
}

static unsigned af_vcode(const af_plan *p, uint64_t a, uint64_t c)
{
    if (!p->fl)
        return af_rel_s(af_sext(a, p->vbits), af_sext(c, p->vbits)) * 3 +
               af_rel_u(a & af_mask(p->vbits), c & af_mask(p->vbits));
    double da = af_fval(p->vk, a), dc = af_fval(p->vk, c);
    unsigned na = isnan(da) ? 1u : 0u, nc = isnan(dc) ? 1u : 0u;
    unsigned num = na || nc ? 3u : da < dc ? 0u : da == dc ? 1u : 2u;
    unsigned tot = af_rel_s(af_tkey(a, p->vbits), af_tkey(c, p->vbits));
    return ((na * 2 + nc) * 4 + num) * 3 + tot;
}

static unsigned af_icode(const af_plan *p, uint64_t b, uint64_t e)
{
    return af_rel_s(af_sext(b, p->ibits), af_sext(e, p->ibits)) * 3 +
           af_rel_u(b & af_mask(p->ibits), e & af_mask(p->ibits));
}

/* ---- recognition -------------------------------------------------------------------- */

enum { K_NONE, K_VARG, K_IARG, K_BOOL, K_VSEL, K_ISEL };

/* Whether the body is of the class (see the top of the file). */
static bool af_shape(const ir_block *b)
{
    if (b->n_args != 4) return false;
    const ir_value *vals[AF_MAX_VALS];
    int kind[AF_MAX_VALS];
    uint32_t nv = 0;
    for (uint32_t i = 0; i < 4; i++) {
        if (b->args[i]->type.rank != 0) return false;
        vals[nv] = b->args[i];
        kind[nv++] = i % 2 == 0 ? K_VARG : K_IARG;
    }
#define AF_KIND(vv, out)                                      \
    do {                                                      \
        out = K_NONE;                                         \
        for (uint32_t q_ = 0; q_ < nv; q_++)                  \
            if (vals[q_] == (vv)) out = kind[q_];             \
    } while (0)
    for (const ir_op *o = b->first; o; o = o->next) {
        if (o->code == PLUMB_OP_RETURN) {
            if (o->n_operands != 2 || o->next) return false;
            int k0, k1;
            AF_KIND(o->operands[0], k0);
            AF_KIND(o->operands[1], k1);
            return (k0 == K_VARG || k0 == K_VSEL) && (k1 == K_IARG || k1 == K_ISEL);
        }
        if (o->n_regions || o->n_results != 1 || nv >= AF_MAX_VALS || o->results[0]->type.rank != 0) return false;
        int k[3] = {K_NONE, K_NONE, K_NONE}, r = K_NONE;
        if (o->n_operands > 3) return false;
        for (uint32_t i = 0; i < o->n_operands; i++) {
            if (o->operands[i]->type.rank != 0) return false;
            AF_KIND(o->operands[i], k[i]);
            if (k[i] == K_NONE) return false;   /* a value from outside, or a constant */
        }
        bool i1 = o->results[0]->type.dtype == PLUMB_I1;
        switch (o->code) {
        case PLUMB_OP_COMPARE:
            if (o->n_operands == 2 && k[0] == k[1] && (k[0] == K_VARG || k[0] == K_IARG)) r = K_BOOL;
            break;
        case PLUMB_OP_AND:
        case PLUMB_OP_OR:
        case PLUMB_OP_XOR:
            if (o->n_operands == 2 && i1 && k[0] == K_BOOL && k[1] == K_BOOL) r = K_BOOL;
            break;
        case PLUMB_OP_NOT:
            if (o->n_operands == 1 && i1 && k[0] == K_BOOL) r = K_BOOL;
            break;
        case PLUMB_OP_SELECT:
            if (o->n_operands != 3 || k[0] != K_BOOL || k[1] != k[2]) break;
            r = k[1] == K_BOOL ? K_BOOL : k[1] == K_VARG ? K_VSEL : k[1] == K_IARG ? K_ISEL : K_NONE;
            break;
        default: break;
        }
        if (r == K_NONE || !rt_ew_supported(o)) return false;
        vals[nv] = o->results[0];
        kind[nv++] = r;
    }
#undef AF_KIND
    return false;
}

/* Representative bit patterns: values of a float type (10) or an integer
 * type (5), indices (5). */
static unsigned af_reps(plumb_dtype t, bool fl, uint64_t *r)
{
    unsigned w = plumb_dtype_table[t].bits;
    uint64_t s = 1ull << (w - 1);
    if (!fl) {
        r[0] = s;
        r[1] = af_mask(w);
        r[2] = 0;
        r[3] = 1;
        r[4] = s - 1;
        return 5;
    }
    unsigned m = plumb_dtype_table[t].mant_bits, e = plumb_dtype_table[t].exp_bits;
    uint64_t inf = ((1ull << e) - 1) << m, one = ((1ull << (e - 1)) - 1) << m, qn = inf | (1ull << (m - 1));
    const uint64_t v[10] = {s | qn | 1, s | qn, s | inf, s | one, s, 0, one, inf, qn, qn | 1};
    memcpy(r, v, sizeof v);
    return 10;
}

/* Runs the body over every representative pair and fills p->tab: 1; 0
 * when the body is not a function of the codes or is not of the class; -1
 * after rt_fail (scratch). */
static int af_tabulate(rt_exec *x, const ir_op *op, af_plan *p)
{
    const ir_block *b = &op->regions[0];
    uint64_t vr[10], ir[5];
    unsigned nvr = af_reps(p->vt, p->fl, vr), nir = af_reps(p->it, false, ir);
    size_t lanes = (size_t)nvr * nvr * nir * nir;
    uint32_t nops = 0;
    for (const ir_op *o = b->first; o; o = o->next) nops++;
    unsigned char *buf = rt_scratch(x, op, (size_t)(4 + nops) * lanes * 8);
    if (!buf) return -1;
    const ir_value *vals[AF_MAX_VALS];
    unsigned char *vb[AF_MAX_VALS];
    uint32_t nv = 0;
    for (uint32_t i = 0; i < 4; i++) {
        vals[nv] = b->args[i];
        vb[nv] = buf + (size_t)nv * lanes * 8;
        nv++;
    }
    for (size_t l = 0; l < lanes; l++) {
        size_t q = l;
        unsigned ie = (unsigned)(q % nir); q /= nir;
        unsigned ib = (unsigned)(q % nir); q /= nir;
        unsigned vc = (unsigned)(q % nvr); q /= nvr;
        unsigned va = (unsigned)q;
        plumb_store_bits(p->vt, vb[0], l, vr[va]);
        plumb_store_bits(p->it, vb[1], l, ir[ib]);
        plumb_store_bits(p->vt, vb[2], l, vr[vc]);
        plumb_store_bits(p->it, vb[3], l, ir[ie]);
    }
    const ir_op *ret = NULL;
    for (const ir_op *o = b->first; o; o = o->next) {
        if (o->code == PLUMB_OP_RETURN) { ret = o; break; }
        const void *ins[3] = {NULL, NULL, NULL};
        for (uint32_t k = 0; k < o->n_operands; k++)
            for (uint32_t q = 0; q < nv; q++)
                if (vals[q] == o->operands[k]) ins[k] = vb[q];
        vals[nv] = o->results[0];
        vb[nv] = buf + (size_t)nv * lanes * 8;
        if (!rt_ew_tile(x, o, ins, vb[nv], lanes)) return 0;
        nv++;
    }
    if (!ret) return 0;
    const unsigned char *rv = NULL, *ri = NULL;
    for (uint32_t q = 0; q < nv; q++) {
        if (vals[q] == ret->operands[0]) rv = vb[q];
        if (vals[q] == ret->operands[1]) ri = vb[q];
    }
    if (!rv || !ri) return 0;
    memset(p->tab, 0, sizeof p->tab);
    for (size_t l = 0; l < lanes; l++) {
        uint64_t a = plumb_load_bits(p->vt, vb[0], l), c = plumb_load_bits(p->vt, vb[2], l);
        uint64_t bi = plumb_load_bits(p->it, vb[1], l), e = plumb_load_bits(p->it, vb[3], l);
        uint64_t r0 = plumb_load_bits(p->vt, rv, l), r1 = plumb_load_bits(p->it, ri, l);
        uint8_t t = AF_SEEN;
        if (a != c) {
            if (r0 == c) t |= AF_VELEM | AF_VKNOWN;
            else if (r0 == a) t |= AF_VKNOWN;
            else return 0;
        } else if (r0 != a) return 0;
        if (bi != e) {
            if (r1 == e) t |= AF_IELEM | AF_IKNOWN;
            else if (r1 == bi) t |= AF_IKNOWN;
            else return 0;
        } else if (r1 != bi) return 0;
        uint8_t *cell = &p->tab[af_vcode(p, a, c)][af_icode(p, bi, e)];
        if (*cell) {
            uint8_t both = *cell & t;
            if ((both & AF_VKNOWN) && ((*cell ^ t) & AF_VELEM)) return 0;
            if ((both & AF_IKNOWN) && ((*cell ^ t) & AF_IELEM)) return 0;
        }
        *cell |= t;
    }
    /* the fast fold's conditions (1) and (2) */
    int dir = -1;   /* 1 max, 0 min */
    for (unsigned vc = 0; vc < AF_VCODES; vc++)
        for (unsigned ic = 0; ic < AF_ICODES; ic++) {
            uint8_t t = p->tab[vc][ic];
            if (!t) continue;
            unsigned rel, vtot;
            if (p->fl) {
                unsigned nan = vc / 12;
                if (nan) continue;
                rel = vc / 3 % 4;
                vtot = vc % 3;
            } else {
                rel = p->vsig ? vc / 3 : vc % 3;
                vtot = rel;
            }
            if (rel != 1) {
                /* (1): the element wins iff it is the better */
                bool elem = (t & AF_VELEM) != 0;
                int d = rel == 0 ? (elem ? 1 : 0) : (elem ? 0 : 1);
                if (dir < 0) dir = d;
                if (d != dir) return 0;
                if ((t & AF_IKNOWN) && ((t & AF_IELEM) != 0) != elem) return 0;
            } else if (vtot == 1) {
                /* (2): identical values, the lower index */
                unsigned irel = p->isig ? ic / 3 : ic % 3;
                if (irel == 1) continue;
                if (!(t & AF_IKNOWN)) return 0;
                if (((t & AF_IELEM) != 0) != (irel == 2)) return 0;
            }
        }
    if (dir < 0) return 0;
    p->max = dir == 1;
    return 1;
}

/* ---- the table, remembered ------------------------------------------------------------
 * Tabulating runs the body over 2,500 lanes through the elementwise
 * kernels: 0.17 ms, every run (an argmax of one row of 8 took 0.17 ms, a
 * plain row max 1 us). The table is a function of the body's structure
 * alone: the value and index types, and per op its opcode, operands (as
 * positions among the block's arguments and earlier results), result type
 * and compare attributes (af_shape admits no other op). So the outcome
 * (a table with its direction, or "not of the class") is kept in a small
 * process-wide memo under that signature, compared word for word. */
#define AF_SIG_WORDS 512u
#define AF_MEMO 8u

typedef struct af_memo {
    uint32_t n;          /* signature words; 0 = empty slot */
    uint32_t sig[AF_SIG_WORDS];
    int res;             /* af_tabulate's 1 or 0 */
    bool max;
    uint8_t tab[AF_VCODES][AF_ICODES];
} af_memo;

static af_memo af_memos[AF_MEMO];
static unsigned af_memo_next;
static pthread_mutex_t af_memo_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t af_tab_n;

uint64_t rt_argfold_tabulations(void) { return __atomic_load_n(&af_tab_n, __ATOMIC_RELAXED); }

/* The body's signature into sig; its length, 0 when it does not fit. */
static uint32_t af_signature(const ir_op *op, const af_plan *p, uint32_t *sig)
{
    const ir_block *b = &op->regions[0];
    const ir_value *vals[AF_MAX_VALS];
    uint32_t nv = 0, n = 0;
    for (uint32_t i = 0; i < 4; i++) vals[nv++] = b->args[i];
    sig[n++] = (uint32_t)p->vt;
    sig[n++] = (uint32_t)p->it;
    for (const ir_op *o = b->first; o; o = o->next) {
        if (n + 8 > AF_SIG_WORDS || o->n_operands > 3) return 0;
        sig[n++] = (uint32_t)o->code;
        sig[n++] = o->n_operands;
        for (uint32_t k = 0; k < o->n_operands; k++) {
            uint32_t q = nv;
            for (uint32_t v = 0; v < nv; v++)
                if (vals[v] == o->operands[k]) q = v;
            if (q == nv) return 0;
            sig[n++] = q;
        }
        if (o->code == PLUMB_OP_RETURN) return n;
        if (o->n_results != 1 || nv >= AF_MAX_VALS) return 0;
        sig[n++] = (uint32_t)o->results[0]->type.dtype;
        sig[n++] = o->code == PLUMB_OP_COMPARE ? (uint32_t)o->a.cmp_dir : 0;
        sig[n++] = o->code == PLUMB_OP_COMPARE ? (uint32_t)o->a.cmp_type : 0;
        vals[nv++] = o->results[0];
    }
    return 0;
}

/* af_tabulate through the memo: 1 (p->tab and p->max set), 0, or -1. */
static int af_table(rt_exec *x, const ir_op *op, af_plan *p)
{
    uint32_t sig[AF_SIG_WORDS];
    uint32_t n = af_signature(op, p, sig);
    if (n) {
        pthread_mutex_lock(&af_memo_mu);
        for (unsigned i = 0; i < AF_MEMO; i++) {
            af_memo *e = &af_memos[i];
            if (e->n != n || memcmp(e->sig, sig, n * sizeof *sig) != 0) continue;
            int res = e->res;
            p->max = e->max;
            memcpy(p->tab, e->tab, sizeof p->tab);
            pthread_mutex_unlock(&af_memo_mu);
            return res;
        }
        pthread_mutex_unlock(&af_memo_mu);
    }
    int res = af_tabulate(x, op, p);
    __atomic_fetch_add(&af_tab_n, 1, __ATOMIC_RELAXED);
    if (res < 0 || !n) return res;
    pthread_mutex_lock(&af_memo_mu);
    af_memo *e = &af_memos[af_memo_next++ % AF_MEMO];
    e->n = n;
    memcpy(e->sig, sig, n * sizeof *sig);
    e->res = res;
    e->max = p->max;
    memcpy(e->tab, p->tab, sizeof p->tab);
    pthread_mutex_unlock(&af_memo_mu);
    return res;
}

/* ---- the sequential fold (the table in the reference's order) ------------------------ */

/* The bits of index element off: read, or generated from its coordinate
 * along the iota's dimension (ref_op_IOTA's integer conversion keeps the
 * low bits: a ui8 iota wraps at 256). */
static inline uint64_t af_ix_bits(const af_plan *p, size_t off)
{
    if (p->gen)
        return ((uint64_t)off / p->gs % p->gd) & af_mask(p->ibits);
    return plumb_load_bits(p->it, p->ix, off);
}

static void af_seq(af_plan *p, uint64_t o, uint64_t j, uint64_t oi)
{
    uint64_t av = p->vinit, ai = p->iinit;
    for (uint64_t r = 0; r < p->L; r++) {
        size_t off = (size_t)((o * p->L + r) * p->I + j);
        uint64_t cv = plumb_load_bits(p->vt, p->v, off), ce = af_ix_bits(p, off);
        uint8_t t = p->tab[af_vcode(p, av, cv)][af_icode(p, ai, ce)];
        if (!(t & AF_SEEN)) {
            __atomic_store_n(&p->failed, true, __ATOMIC_RELAXED);
            return;
        }
        av = (t & AF_VELEM) ? cv : av;
        ai = (t & AF_IELEM) ? ce : ai;
    }
    plumb_store_bits(p->vt, p->ov, (size_t)oi, av);
    plumb_store_bits(p->it, p->oi, (size_t)oi, ai);
    __atomic_fetch_add(&af_seq_n, 1, __ATOMIC_RELAXED);
}

static inline uint64_t af_ikey(const af_plan *p, uint64_t bits)
{
    return p->isig ? (uint64_t)af_sext(bits, p->ibits) ^ (1ull << 63) : bits & af_mask(p->ibits);
}

/* The key of index element off (plumb_load_bits without its dispatch: the
 * hits of a row with many ties load one each). */
static inline uint64_t af_ikey_at(const af_plan *p, size_t off)
{
    if (p->gen) return af_ikey(p, af_ix_bits(p, off));
    switch (p->ibits) {
    case 8: return af_ikey(p, p->ix[off]);
    case 16: { uint16_t v; memcpy(&v, p->ix + off * 2, 2); return af_ikey(p, v); }
    case 32: { uint32_t v; memcpy(&v, p->ix + off * 4, 4); return af_ikey(p, v); }
    default: { uint64_t v; memcpy(&v, p->ix + off * 8, 8); return af_ikey(p, v); }
    }
}

/* ---- f32 rows at the vector levels --------------------------------------------------- */

#if AF_X86
#define AF_512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define AF_256 __attribute__((target("avx2,fma")))

#define AF_P1_512(OP)                                                                        \
    do {                                                                                     \
        for (; i + 64 <= n; i += 64) {                                                       \
            __m512 x0 = _mm512_loadu_ps(s + i), x1 = _mm512_loadu_ps(s + i + 16);            \
            __m512 x2 = _mm512_loadu_ps(s + i + 32), x3 = _mm512_loadu_ps(s + i + 48);       \
            nan |= _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(x2, x3, _CMP_UNORD_Q); \
            a0 = OP(a0, x0); a1 = OP(a1, x1); a2 = OP(a2, x2); a3 = OP(a3, x3);               \
        }                                                                                    \
        for (; i + 16 <= n; i += 16) {                                                       \
            __m512 x0 = _mm512_loadu_ps(s + i);                                              \
            nan |= _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q);                                  \
            a0 = OP(a0, x0);                                                                 \
        }                                                                                    \
        if (i < n) {                                                                         \
            __mmask16 k = (__mmask16)((1u << (n - i)) - 1);                                  \
            __m512 x0 = _mm512_mask_loadu_ps(a0, k, s + i);                                  \
            nan |= _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q);                                  \
            a0 = OP(a0, x0);                                                                 \
        }                                                                                    \
        a0 = OP(OP(a0, a1), OP(a2, a3));                                                     \
    } while (0)

/* The best of s[0..n) and *m under max or min; true if any s[i] is NaN
 * (the best is then meaningless). A zero best's sign is arbitrary. */
AF_512 static bool af_p1_f32_avx512(const float *s, size_t n, bool max, float *m)
{
    __m512 a0 = _mm512_set1_ps(*m), a1 = a0, a2 = a0, a3 = a0;
    __mmask16 nan = 0;
    size_t i = 0;
    if (max) {
        AF_P1_512(_mm512_max_ps);
        *m = _mm512_reduce_max_ps(a0);
    } else {
        AF_P1_512(_mm512_min_ps);
        *m = _mm512_reduce_min_ps(a0);
    }
    return nan != 0;
}

AF_512 static size_t af_eq_f32_avx512(const float *s, size_t i, size_t n, float m)
{
    __m512 mv = _mm512_set1_ps(m);
    for (; i + 16 <= n; i += 16) {
        __mmask16 k = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + i), mv, _CMP_EQ_OQ);
        if (k) return i + (size_t)__builtin_ctz(k);
    }
    if (i < n) {
        __mmask16 kk = (__mmask16)((1u << (n - i)) - 1);
        __mmask16 k = _mm512_mask_cmp_ps_mask(kk, _mm512_maskz_loadu_ps(kk, s + i), mv, _CMP_EQ_OQ);
        if (k) return i + (size_t)__builtin_ctz(k);
    }
    return n;
}

#define AF_P1_256(OP)                                                                        \
    do {                                                                                     \
        for (; i + 32 <= n; i += 32) {                                                       \
            __m256 x0 = _mm256_loadu_ps(s + i), x1 = _mm256_loadu_ps(s + i + 8);             \
            __m256 x2 = _mm256_loadu_ps(s + i + 16), x3 = _mm256_loadu_ps(s + i + 24);       \
            nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),        \
                                                 _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q)));      \
            a0 = OP(a0, x0); a1 = OP(a1, x1); a2 = OP(a2, x2); a3 = OP(a3, x3);               \
        }                                                                                    \
        for (; i + 8 <= n; i += 8) {                                                         \
            __m256 x0 = _mm256_loadu_ps(s + i);                                              \
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));                     \
            a0 = OP(a0, x0);                                                                 \
        }                                                                                    \
        a0 = OP(OP(a0, a1), OP(a2, a3));                                                     \
        float l[8];                                                                          \
        _mm256_storeu_ps(l, a0);                                                             \
        for (unsigned q = 0; q < 8; q++) r = OP##_1(r, l[q]);                                 \
    } while (0)

static inline float af_max1(float a, float b) { return b > a ? b : a; }
static inline float af_min1(float a, float b) { return b < a ? b : a; }
#define _mm256_max_ps_1 af_max1
#define _mm256_min_ps_1 af_min1

AF_256 static bool af_p1_f32_avx2(const float *s, size_t n, bool max, float *m)
{
    __m256 a0 = _mm256_set1_ps(*m), a1 = a0, a2 = a0, a3 = a0, nan = _mm256_setzero_ps();
    size_t i = 0;
    float r = *m;
    bool tn = false;
    if (max) {
        AF_P1_256(_mm256_max_ps);
        for (; i < n; i++) { tn |= s[i] != s[i]; r = af_max1(r, s[i]); }
    } else {
        AF_P1_256(_mm256_min_ps);
        for (; i < n; i++) { tn |= s[i] != s[i]; r = af_min1(r, s[i]); }
    }
    *m = r;
    return tn || _mm256_movemask_ps(nan) != 0;
}

AF_256 static size_t af_eq_f32_avx2(const float *s, size_t i, size_t n, float m)
{
    __m256 mv = _mm256_set1_ps(m);
    for (; i + 8 <= n; i += 8) {
        int k = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(s + i), mv, _CMP_EQ_OQ));
        if (k) return i + (size_t)__builtin_ctz((unsigned)k);
    }
    for (; i < n; i++)
        if (s[i] == m) return i;
    return n;
}
#endif

#if AF_X86
/* One pass over s[0..n): *m the best of s and *m under max or min, *pos
 * the first position of a value equal to the best (meaningful only when
 * the best differs from *m's value on entry, i.e. some element beats it);
 * true if any s[i] is NaN (the rest is then meaningless). Each lane keeps
 * its best and where it was first reached: a strictly better element
 * replaces both, so a lane's position is its first holding the lane's
 * best; the least such position among the lanes holding the overall best
 * is the first in the row (a lane's best itself by a plain maximum or
 * minimum: the same value unless a NaN is met, and a NaN sends the row to
 * the sequential fold). Positions are 32-bit (n < 2^32 - 64). */
#define AF_P1I_512(CMP)                                                                                 \
    do {                                                                                                \
        for (; i + 64 <= n; i += 64) {                                                                  \
            __m512 x0 = _mm512_loadu_ps(s + i), x1 = _mm512_loadu_ps(s + i + 16);                       \
            __m512 x2 = _mm512_loadu_ps(s + i + 32), x3 = _mm512_loadu_ps(s + i + 48);                  \
            nan |= _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(x2, x3, _CMP_UNORD_Q);   \
            __mmask16 k0 = _mm512_cmp_ps_mask(x0, a0, CMP), k1 = _mm512_cmp_ps_mask(x1, a1, CMP);       \
            __mmask16 k2 = _mm512_cmp_ps_mask(x2, a2, CMP), k3 = _mm512_cmp_ps_mask(x3, a3, CMP);       \
            __m512i vi = _mm512_set1_epi32((int)i);                                                     \
            a0 = _mm512_mask_mov_ps(a0, k0, x0); a1 = _mm512_mask_mov_ps(a1, k1, x1);                   \
            a2 = _mm512_mask_mov_ps(a2, k2, x2); a3 = _mm512_mask_mov_ps(a3, k3, x3);                   \
            p0 = _mm512_mask_mov_epi32(p0, k0, vi); p1 = _mm512_mask_mov_epi32(p1, k1, vi);             \
            p2 = _mm512_mask_mov_epi32(p2, k2, vi); p3 = _mm512_mask_mov_epi32(p3, k3, vi);             \
        }                                                                                               \
        for (; i < n; i += 16) {                                                                        \
            __mmask16 kk = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);          \
            __m512 x0 = _mm512_maskz_loadu_ps(kk, s + i);                                               \
            nan |= _mm512_mask_cmp_ps_mask(kk, x0, x0, _CMP_UNORD_Q);                                   \
            __mmask16 k0 = _mm512_mask_cmp_ps_mask(kk, x0, a0, CMP);                                    \
            a0 = _mm512_mask_mov_ps(a0, k0, x0);                                                        \
            p0 = _mm512_mask_mov_epi32(p0, k0, _mm512_set1_epi32((int)i));                              \
        }                                                                                               \
    } while (0)

AF_512 static bool af_p1i_f32_avx512(const float *s, size_t n, bool max, float *m, size_t *pos)
{
    __m512 a0 = _mm512_set1_ps(*m), a1 = a0, a2 = a0, a3 = a0;
    __m512i p0 = _mm512_setzero_si512(), p1 = p0, p2 = p0, p3 = p0;
    __mmask16 nan = 0;
    size_t i = 0;
    float b;
    if (max) {
        AF_P1I_512(_CMP_GT_OQ);
        b = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(a0, a1), _mm512_max_ps(a2, a3)));
    } else {
        AF_P1I_512(_CMP_LT_OQ);
        b = _mm512_reduce_min_ps(_mm512_min_ps(_mm512_min_ps(a0, a1), _mm512_min_ps(a2, a3)));
    }
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 bv = _mm512_set1_ps(b);
    __m512i c = _mm512_set1_epi32(-1);
    c = _mm512_mask_min_epu32(c, _mm512_cmp_ps_mask(a0, bv, _CMP_EQ_OQ), c, _mm512_add_epi32(p0, lane));
    c = _mm512_mask_min_epu32(c, _mm512_cmp_ps_mask(a1, bv, _CMP_EQ_OQ), c,
                              _mm512_add_epi32(p1, _mm512_add_epi32(lane, _mm512_set1_epi32(16))));
    c = _mm512_mask_min_epu32(c, _mm512_cmp_ps_mask(a2, bv, _CMP_EQ_OQ), c,
                              _mm512_add_epi32(p2, _mm512_add_epi32(lane, _mm512_set1_epi32(32))));
    c = _mm512_mask_min_epu32(c, _mm512_cmp_ps_mask(a3, bv, _CMP_EQ_OQ), c,
                              _mm512_add_epi32(p3, _mm512_add_epi32(lane, _mm512_set1_epi32(48))));
    *pos = _mm512_reduce_min_epu32(c);
    *m = b;
    return nan != 0;
}

#define AF_P1I_256(CMP, OP, BETTER)                                                                       \
    do {                                                                                                \
        for (; i + 32 <= n; i += 32) {                                                                  \
            __m256 x0 = _mm256_loadu_ps(s + i), x1 = _mm256_loadu_ps(s + i + 8);                        \
            __m256 x2 = _mm256_loadu_ps(s + i + 16), x3 = _mm256_loadu_ps(s + i + 24);                  \
            nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(x0, x1, _CMP_UNORD_Q),                   \
                                                 _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q)));                 \
            __m256 k0 = _mm256_cmp_ps(x0, a0, CMP), k1 = _mm256_cmp_ps(x1, a1, CMP);                    \
            __m256 k2 = _mm256_cmp_ps(x2, a2, CMP), k3 = _mm256_cmp_ps(x3, a3, CMP);                    \
            __m256i vi = _mm256_set1_epi32((int)i);                                                     \
            a0 = OP(a0, x0); a1 = OP(a1, x1); a2 = OP(a2, x2); a3 = OP(a3, x3);                         \
            p0 = _mm256_blendv_epi8(p0, vi, _mm256_castps_si256(k0));                                   \
            p1 = _mm256_blendv_epi8(p1, vi, _mm256_castps_si256(k1));                                   \
            p2 = _mm256_blendv_epi8(p2, vi, _mm256_castps_si256(k2));                                   \
            p3 = _mm256_blendv_epi8(p3, vi, _mm256_castps_si256(k3));                                   \
        }                                                                                               \
        for (; i + 8 <= n; i += 8) {                                                                    \
            __m256 x0 = _mm256_loadu_ps(s + i);                                                         \
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));                               \
            __m256 k0 = _mm256_cmp_ps(x0, a0, CMP);                                                     \
            a0 = OP(a0, x0);                                                                            \
            p0 = _mm256_blendv_epi8(p0, _mm256_set1_epi32((int)i), _mm256_castps_si256(k0));            \
        }                                                                                               \
        for (; i < n; i++) {                                                                            \
            tn |= s[i] != s[i];                                                                         \
            if (s[i] BETTER r) { r = s[i]; rp = i; }                                                    \
        }                                                                                               \
    } while (0)

AF_256 static bool af_p1i_f32_avx2(const float *s, size_t n, bool max, float *m, size_t *pos)
{
    __m256 a0 = _mm256_set1_ps(*m), a1 = a0, a2 = a0, a3 = a0, nan = _mm256_setzero_ps();
    __m256i p0 = _mm256_setzero_si256(), p1 = p0, p2 = p0, p3 = p0;
    size_t i = 0, rp = SIZE_MAX;
    float r = *m;
    bool tn = false;
    if (max) AF_P1I_256(_CMP_GT_OQ, _mm256_max_ps, >);
    else AF_P1I_256(_CMP_LT_OQ, _mm256_min_ps, <);
    float l[32];
    uint32_t q[32];
    _mm256_storeu_ps(l, a0); _mm256_storeu_ps(l + 8, a1); _mm256_storeu_ps(l + 16, a2); _mm256_storeu_ps(l + 24, a3);
    _mm256_storeu_si256((__m256i *)(void *)q, p0);
    _mm256_storeu_si256((__m256i *)(void *)(q + 8), p1);
    _mm256_storeu_si256((__m256i *)(void *)(q + 16), p2);
    _mm256_storeu_si256((__m256i *)(void *)(q + 24), p3);
    float b = r;
    for (unsigned k = 0; k < 32; k++) b = max ? af_max1(b, l[k]) : af_min1(b, l[k]);
    size_t best = rp != SIZE_MAX && r == b ? rp : SIZE_MAX;
    for (unsigned k = 0; k < 32; k++) {
        size_t at = (size_t)q[k] + k;   /* acc k / 8, lane k % 8: (k / 8) * 8 + k % 8 = k */
        if (l[k] == b && at < best) best = at;
    }
    *pos = best;
    *m = b;
    return tn || _mm256_movemask_ps(nan) != 0;
}
#endif

/* The one-pass best and first position at the run's level (see above). */
static bool af_p1i_f32(plumb_isa isa, const float *s, size_t n, bool max, float *m, size_t *pos)
{
#if AF_X86
    if (isa >= PLUMB_ISA_AVX512) return af_p1i_f32_avx512(s, n, max, m, pos);
    if (isa >= PLUMB_ISA_AVX2) return af_p1i_f32_avx2(s, n, max, m, pos);
#endif
    (void)isa;
    float a = *m;
    size_t at = 0;
    bool nan = false;
    if (max)
        for (size_t i = 0; i < n; i++) { nan |= s[i] != s[i]; if (s[i] > a) { a = s[i]; at = i; } }
    else
        for (size_t i = 0; i < n; i++) { nan |= s[i] != s[i]; if (s[i] < a) { a = s[i]; at = i; } }
    *m = a;
    *pos = at;
    return nan;
}

static bool af_p1_f32(plumb_isa isa, const float *s, size_t n, bool max, float *m)
{
#if AF_X86
    if (isa >= PLUMB_ISA_AVX512) return af_p1_f32_avx512(s, n, max, m);
    if (isa >= PLUMB_ISA_AVX2) return af_p1_f32_avx2(s, n, max, m);
#endif
    (void)isa;
    float a = *m;
    bool nan = false;
    if (max)
        for (size_t i = 0; i < n; i++) { nan |= s[i] != s[i]; a = s[i] > a ? s[i] : a; }
    else
        for (size_t i = 0; i < n; i++) { nan |= s[i] != s[i]; a = s[i] < a ? s[i] : a; }
    *m = a;
    return nan;
}

static size_t af_eq_f32(plumb_isa isa, const float *s, size_t i, size_t n, float m)
{
#if AF_X86
    if (isa >= PLUMB_ISA_AVX512) return af_eq_f32_avx512(s, i, n, m);
    if (isa >= PLUMB_ISA_AVX2) return af_eq_f32_avx2(s, i, n, m);
#endif
    (void)isa;
    for (; i < n; i++)
        if (s[i] == m) return i;
    return n;
}

#if AF_X86
/* An f32 row with 32-bit indices, its best m known (not NaN, not zero):
 * the least index key among the positions equal to m (and the init's,
 * when the init equals m), by masked vector minima of the keys
 * (signed indices biased to unsigned order); the value is m's bits. */
AF_512 static void af_row_f32_i32_avx512(af_plan *p, const float *s, uint64_t base, uint64_t o, float m,
                                         bool init_hit)
{
    const uint32_t *ix = (const uint32_t *)(const void *)p->ix + base;
    uint32_t bias = p->isig ? 0x80000000u : 0;
    uint32_t key0 = init_hit ? (uint32_t)p->iinit ^ bias : UINT32_MAX;
    __m512 mv = _mm512_set1_ps(m);
    __m512i acc = _mm512_set1_epi32((int)key0), bv = _mm512_set1_epi32((int)bias);
    size_t n = (size_t)p->L, i = 0;
    for (; i + 16 <= n; i += 16) {
        __mmask16 k = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + i), mv, _CMP_EQ_OQ);
        if (k)
            acc = _mm512_mask_min_epu32(acc, k, acc, _mm512_xor_si512(_mm512_maskz_loadu_epi32(k, ix + i), bv));
    }
    if (i < n) {
        __mmask16 kk = (__mmask16)((1u << (n - i)) - 1);
        __mmask16 k = _mm512_mask_cmp_ps_mask(kk, _mm512_maskz_loadu_ps(kk, s + i), mv, _CMP_EQ_OQ);
        if (k)
            acc = _mm512_mask_min_epu32(acc, k, acc, _mm512_xor_si512(_mm512_maskz_loadu_epi32(k, ix + i), bv));
    }
    uint32_t key = _mm512_reduce_min_epu32(acc) ^ bias;
    plumb_store_bits(p->vt, p->ov, (size_t)o, plumb_f32_bits(m));
    plumb_store_bits(p->it, p->oi, (size_t)o, key);
}
#endif

#if AF_X86
/* Pass 1 of a strip of nj <= AF_STRIP f32 columns, row after row, the
 * accumulators in L1: acc[j] the best of column j and its init, nan[j]
 * set if the column holds a NaN (the best is then meaningless). */
AF_512 static void af_col_p1_f32_avx512(const float *s, uint64_t L, uint64_t I, uint64_t nj, bool max, float *acc,
                                        uint8_t *nan)
{
    __mmask16 nm[AF_STRIP / 16] = {0};
    uint64_t nb = nj / 16;
    for (uint64_t r = 0; r < L; r++) {
        const float *row = s + r * I;
        for (uint64_t b = 0; b < nb; b++) {
            __m512 x = _mm512_loadu_ps(row + b * 16), a = _mm512_loadu_ps(acc + b * 16);
            nm[b] |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
            _mm512_storeu_ps(acc + b * 16, max ? _mm512_max_ps(a, x) : _mm512_min_ps(a, x));
        }
        for (uint64_t j = nb * 16; j < nj; j++) {
            float v = row[j];
            nan[j] |= v != v;
            acc[j] = max ? (v > acc[j] ? v : acc[j]) : (v < acc[j] ? v : acc[j]);
        }
    }
    for (uint64_t b = 0; b < nb; b++)
        for (unsigned q = 0; q < 16; q++) nan[b * 16 + q] |= (uint8_t)((nm[b] >> q) & 1u);
}

AF_256 static void af_col_p1_f32_avx2(const float *s, uint64_t L, uint64_t I, uint64_t nj, bool max, float *acc,
                                      uint8_t *nan)
{
    uint8_t nm[AF_STRIP / 8] = {0};
    uint64_t nb = nj / 8;
    for (uint64_t r = 0; r < L; r++) {
        const float *row = s + r * I;
        for (uint64_t b = 0; b < nb; b++) {
            __m256 x = _mm256_loadu_ps(row + b * 8), a = _mm256_loadu_ps(acc + b * 8);
            nm[b] |= (uint8_t)_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
            _mm256_storeu_ps(acc + b * 8, max ? _mm256_max_ps(a, x) : _mm256_min_ps(a, x));
        }
        for (uint64_t j = nb * 8; j < nj; j++) {
            float v = row[j];
            nan[j] |= v != v;
            acc[j] = max ? (v > acc[j] ? v : acc[j]) : (v < acc[j] ? v : acc[j]);
        }
    }
    for (uint64_t b = 0; b < nb; b++)
        for (unsigned q = 0; q < 8; q++) nan[b * 8 + q] |= (uint8_t)((nm[b] >> q) & 1u);
}
#endif

/* true when a vector level did the strip's pass 1 */
static bool af_col_p1_f32(plumb_isa isa, const float *s, uint64_t L, uint64_t I, uint64_t nj, bool max, float *acc,
                          uint8_t *nan)
{
#if AF_X86
    if (isa >= PLUMB_ISA_AVX512) { af_col_p1_f32_avx512(s, L, I, nj, max, acc, nan); return true; }
    if (isa >= PLUMB_ISA_AVX2) { af_col_p1_f32_avx2(s, L, I, nj, max, acc, nan); return true; }
#endif
    (void)s; (void)L; (void)I; (void)nj; (void)max; (void)acc; (void)nan; (void)isa;
    return false;
}

#if AF_X86
/* The index pass of a strip of nj f32 columns at AVX-512: per row and 16
 * columns, the lanes equal to their column's best (columns with a NaN
 * excluded) by one compare; each hit's key as in the scalar pass. With
 * p->gmono a column leaves the pass at its first hit, and the pass ends
 * when none is left. */
AF_512 static void af_col_hits_f32_avx512(af_plan *p, const float *s, uint64_t base, uint64_t nj, const float *acc,
                                          const uint8_t *nan, int64_t *pos, uint64_t *key)
{
    const uint64_t L = p->L, I = p->I, nb = (nj + 15) / 16;
    __mmask16 live[AF_STRIP / 16];
    __m512 av[AF_STRIP / 16];
    for (uint64_t b = 0; b < nb; b++) {
        unsigned m = 0;
        for (unsigned q = 0; q < 16 && b * 16 + q < nj; q++) m |= nan[b * 16 + q] ? 0u : 1u << q;
        live[b] = (__mmask16)m;
        av[b] = _mm512_maskz_loadu_ps(live[b], acc + b * 16);
    }
    for (uint64_t r = 0; r < L; r++) {
        const float *row = s + r * I;
        unsigned any = 0;
        for (uint64_t b = 0; b < nb; b++) {
            if (!live[b]) continue;
            any = 1;
            __mmask16 k = _mm512_mask_cmp_ps_mask(live[b], _mm512_maskz_loadu_ps(live[b], row + b * 16), av[b],
                                                  _CMP_EQ_OQ);
            while (k) {
                unsigned q = (unsigned)__builtin_ctz(k);
                k = (__mmask16)(k & (k - 1));
                uint64_t j = b * 16 + q;
                uint64_t kk = af_ikey_at(p, (size_t)(base + r * I + j));
                if (pos[j] == -2 || kk < key[j]) { key[j] = kk; pos[j] = (int64_t)r; }
                if (p->gmono) live[b] = (__mmask16)(live[b] & ~(1u << q));
            }
        }
        if (!any) break;
    }
}
#endif

/* true when a vector level did the strip's index pass */
static bool af_col_hits_f32(af_plan *p, const float *s, uint64_t base, uint64_t nj, const float *acc,
                            const uint8_t *nan, int64_t *pos, uint64_t *key)
{
#if AF_X86
    if (p->isa >= PLUMB_ISA_AVX512) { af_col_hits_f32_avx512(p, s, base, nj, acc, nan, pos, key); return true; }
#endif
    (void)p; (void)s; (void)base; (void)nj; (void)acc; (void)nan; (void)pos; (void)key;
    return false;
}

/* ---- strips: one row (inner = 1) or up to AF_STRIP columns of one slice -------------- */

static inline float af_f16(uint16_t h) { return (float)plumb_f16_to_f64(h); }
static inline float af_bf16(uint16_t h) { return plumb_f32_from_bits((uint32_t)h << 16); }
#define AF_ID(v) (v)

/* The output's pair from the least key among the hits (pos < 0: the init). */
static inline void af_store(af_plan *p, uint64_t oi, int64_t pos, size_t voff)
{
    if (pos < 0) {
        plumb_store_bits(p->vt, p->ov, (size_t)oi, p->vinit);
        plumb_store_bits(p->it, p->oi, (size_t)oi, p->iinit);
    } else {
        plumb_store_bits(p->vt, p->ov, (size_t)oi, plumb_load_bits(p->vt, p->v, voff));
        plumb_store_bits(p->it, p->oi, (size_t)oi, af_ix_bits(p, voff));
    }
}

#define AF_STRIP_FN(NAME, T, C, CV, FL, ROWP1, ROWEQ, ROWFAST, COLP1, COLHITS)                               \
    static void af_strip_##NAME(af_plan *p, uint64_t o, uint64_t j0, uint64_t nj)                \
    {                                                                                            \
        const uint64_t L = p->L, I = p->I;                                                       \
        const uint64_t base = o * L * I + j0;                                                    \
        const T *s = (const T *)(const void *)p->v + base;                                      \
        T ib;                                                                                    \
        memcpy(&ib, p->vinit_raw, sizeof ib);                                                    \
        const C init = CV(ib);                                                                   \
        const uint64_t ikey0 = af_ikey(p, p->iinit);                                             \
        if (I == 1) {                                                                            \
            C m = init;                                                                          \
            bool nan = p->init_nan;                                                              \
            ROWP1;                                                                               \
            if (nan || (FL && m == 0)) { af_seq(p, o, 0, o); return; }                           \
            ROWFAST;                                                                             \
            int64_t pos = -2;                                                                    \
            uint64_t key = 0;                                                                    \
            if (init == m) { pos = -1; key = ikey0; }                                            \
            for (uint64_t r = ROWEQ(0); r < L; r = ROWEQ(r + 1)) {                               \
                uint64_t k = af_ikey_at(p, (size_t)(base + r));                                  \
                if (pos == -2 || k < key) { key = k; pos = (int64_t)r; }                         \
                if (p->gmono) break;   /* later hits have no lower index */                      \
            }                                                                                    \
            af_store(p, o, pos, (size_t)(base + (uint64_t)(pos < 0 ? 0 : pos)));                  \
            return;                                                                              \
        }                                                                                        \
        C acc[AF_STRIP];                                                                         \
        uint8_t nan[AF_STRIP];                                                                   \
        int64_t pos[AF_STRIP];                                                                   \
        uint64_t key[AF_STRIP];                                                                  \
        for (uint64_t j = 0; j < nj; j++) { acc[j] = init; nan[j] = p->init_nan; }               \
        bool colv = false;                                                                       \
        COLP1;                                                                                   \
        for (uint64_t r = 0; r < L && !colv; r++) {                                              \
            const T *row = s + r * I;                                                            \
            if (p->max)                                                                          \
                for (uint64_t j = 0; j < nj; j++) {                                              \
                    C v = CV(row[j]);                                                            \
                    nan[j] |= v != v;                                                            \
                    acc[j] = v > acc[j] ? v : acc[j];                                            \
                }                                                                                \
            else                                                                                 \
                for (uint64_t j = 0; j < nj; j++) {                                              \
                    C v = CV(row[j]);                                                            \
                    nan[j] |= v != v;                                                            \
                    acc[j] = v < acc[j] ? v : acc[j];                                            \
                }                                                                                \
        }                                                                                        \
        uint8_t done[AF_STRIP];   /* gmono: the column's first hit seen */                    \
        for (uint64_t j = 0; j < nj; j++) {                                                      \
            pos[j] = init == acc[j] ? -1 : -2;                                                   \
            key[j] = ikey0;                                                                      \
            done[j] = nan[j];                                                                    \
        }                                                                                        \
        bool colh = false;                                                                       \
        COLHITS;                                                                                 \
        for (uint64_t r = 0; r < L && !colh; r++) {                                              \
            const T *row = s + r * I;                                                            \
            for (uint64_t j = 0; j < nj; j++)                                                    \
                if (!done[j] && CV(row[j]) == acc[j]) {                                          \
                    uint64_t k = af_ikey_at(p, (size_t)(base + r * I + j));                      \
                    if (pos[j] == -2 || k < key[j]) { key[j] = k; pos[j] = (int64_t)r; }         \
                    done[j] = p->gmono;   /* later hits have no lower index */                   \
                }                                                                                \
        }                                                                                        \
        for (uint64_t j = 0; j < nj; j++) {                                                      \
            uint64_t oi = o * I + j0 + j;                                                        \
            if (nan[j] || (FL && acc[j] == 0)) af_seq(p, o, j0 + j, oi);                         \
            else af_store(p, oi, pos[j], (size_t)(base + (uint64_t)(pos[j] < 0 ? 0 : pos[j]) * I + j)); \
        }                                                                                        \
    }

/* the scalar row pass and scan, for types without vector loops */
#define AF_ROWP1_SCALAR(CV)                                                                    \
    do {                                                                                       \
        if (p->max)                                                                            \
            for (uint64_t r = 0; r < L; r++) { C_ v = CV(s[r]); nan |= v != v; m = v > m ? v : m; } \
        else                                                                                   \
            for (uint64_t r = 0; r < L; r++) { C_ v = CV(s[r]); nan |= v != v; m = v < m ? v : m; } \
    } while (0)

#define AF_GEN(NAME, T, C, CV, FL)                                                             \
    static inline uint64_t af_next_##NAME(const T *s, uint64_t r, uint64_t L, C m)             \
    {                                                                                          \
        for (; r < L; r++)                                                                     \
            if (CV(s[r]) == m) return r;                                                       \
        return L;                                                                              \
    }                                                                                          \
    typedef C af_c_##NAME;                                                                     \
    AF_STRIP_FN(NAME, T, C, CV, FL,                                                            \
                do {                                                                           \
                    typedef af_c_##NAME C_;                                                    \
                    AF_ROWP1_SCALAR(CV);                                                       \
                } while (0),                                                                   \
                NEXT_##NAME, (void)0, (void)colv, (void)colh)

#define NEXT_f64(r) af_next_f64(s, (r), L, m)
#define NEXT_f16(r) af_next_f16(s, (r), L, m)
#define NEXT_bf16(r) af_next_bf16(s, (r), L, m)
#define NEXT_s8(r) af_next_s8(s, (r), L, m)
#define NEXT_s16(r) af_next_s16(s, (r), L, m)
#define NEXT_s32(r) af_next_s32(s, (r), L, m)
#define NEXT_s64(r) af_next_s64(s, (r), L, m)
#define NEXT_u8(r) af_next_u8(s, (r), L, m)
#define NEXT_u16(r) af_next_u16(s, (r), L, m)
#define NEXT_u32(r) af_next_u32(s, (r), L, m)
#define NEXT_u64(r) af_next_u64(s, (r), L, m)

AF_GEN(f64, double, double, AF_ID, true)
AF_GEN(f16, uint16_t, float, af_f16, true)
AF_GEN(bf16, uint16_t, float, af_bf16, true)
AF_GEN(s8, int8_t, int64_t, AF_ID, false)
AF_GEN(s16, int16_t, int64_t, AF_ID, false)
AF_GEN(s32, int32_t, int64_t, AF_ID, false)
AF_GEN(s64, int64_t, int64_t, AF_ID, false)
AF_GEN(u8, uint8_t, uint64_t, AF_ID, false)
AF_GEN(u16, uint16_t, uint64_t, AF_ID, false)
AF_GEN(u32, uint32_t, uint64_t, AF_ID, false)
AF_GEN(u64, uint64_t, uint64_t, AF_ID, false)

/* f32: the vector row pass and scan */
#define NEXT_f32(r) (uint64_t)af_eq_f32(p->isa, s, (size_t)(r), (size_t)L, m)
#if AF_X86
#define AF_F32_FAST                                                                            \
    do {                                                                                       \
        if (p->isa >= PLUMB_ISA_AVX512 && p->ibits == 32 && !p->gen) {                                    \
            af_row_f32_i32_avx512(p, s, base, o, m, init == m);                                    \
            return;                                                                            \
        }                                                                                      \
    } while (0)
#else
#define AF_F32_FAST (void)0
#endif
AF_STRIP_FN(f32, float, float, AF_ID, true, nan |= af_p1_f32(p->isa, s, (size_t)L, p->max, &m), NEXT_f32,
            AF_F32_FAST, colv = af_col_p1_f32(p->isa, s, L, I, nj, p->max, acc, nan),
            colh = af_col_hits_f32(p, s, base, nj, acc, nan, pos, key))

/* An f32 row (inner = 1) whose indices are generated and non-decreasing
 * along it (p->gmono): the first position of the best is the least
 * index, found in the same pass as the best (af_p1i_f32), then the index
 * of that one element (the iota along the row: its position). 1 when
 * done so, 2 when done by the sequential fold (a NaN, a zero best), 0
 * when the row is not of that kind or its best equals the init (the
 * init's index competes: the general row code). */
static int af_row1_f32(af_plan *p, uint64_t o)
{
    const uint64_t L = p->L;
    if (p->I != 1 || !p->gen || !p->gmono || L >= UINT32_MAX - 64) return 0;
    const float *s = (const float *)(const void *)p->v + o * L;
    float init, m;
    memcpy(&init, p->vinit_raw, sizeof init);
    m = init;
    size_t pos = 0;
    bool nan = af_p1i_f32(p->isa, s, (size_t)L, p->max, &m, &pos) || p->init_nan;
    if (nan || m == 0) { af_seq(p, o, 0, o); return 2; }
    if (m == init || pos >= L) return 0;
    uint64_t off = o * L + pos;
    uint64_t ix = p->gs == 1 && p->gd == L ? (uint64_t)pos & af_mask(p->ibits) : af_ix_bits(p, (size_t)off);
    plumb_store_bits(p->vt, p->ov, (size_t)o, plumb_f32_bits(m));
    plumb_store_bits(p->it, p->oi, (size_t)o, ix);
    return 1;
}

static void af_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    af_plan *p = ctx;
    uint64_t one = 0;
    for (uint64_t it = begin; it < end; it++) {
        uint64_t o = it / p->nstrip, j0 = it % p->nstrip * AF_STRIP;
        uint64_t nj = p->I - j0 < AF_STRIP ? p->I - j0 : AF_STRIP;
        switch (p->vk) {
        case AV_F32:
            switch (af_row1_f32(p, o)) {
            case 0: af_strip_f32(p, o, j0, nj); break;
            case 1: one++; break;
            default: break;
            }
            break;
        case AV_F64: af_strip_f64(p, o, j0, nj); break;
        case AV_F16: af_strip_f16(p, o, j0, nj); break;
        case AV_BF16: af_strip_bf16(p, o, j0, nj); break;
        case AV_S8: af_strip_s8(p, o, j0, nj); break;
        case AV_S16: af_strip_s16(p, o, j0, nj); break;
        case AV_S32: af_strip_s32(p, o, j0, nj); break;
        case AV_S64: af_strip_s64(p, o, j0, nj); break;
        case AV_U8: af_strip_u8(p, o, j0, nj); break;
        case AV_U16: af_strip_u16(p, o, j0, nj); break;
        case AV_U32: af_strip_u32(p, o, j0, nj); break;
        case AV_U64: af_strip_u64(p, o, j0, nj); break;
        }
    }
    if (one) __atomic_fetch_add(&af_one_n, one, __ATOMIC_RELAXED);
}

static bool af_run(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red,
                   bool gen, bool *done)
{
    *done = false;
    if (op->n_results != 2 || op->n_operands != 4 || op->n_regions != 1) return true;
    af_plan *p = rt_scratch(x, op, sizeof *p);
    if (!p) return false;
    memset(p, 0, sizeof *p);
    p->vt = in[0]->dtype;
    p->it = in[1]->dtype;
    if (!af_value_kind(p->vt, &p->vk) || !af_index_type(p->it)) return true;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 4 || in[2]->dtype != p->vt || in[3]->dtype != p->it || out[0]->dtype != p->vt ||
        out[1]->dtype != p->it || b->args[0]->type.dtype != p->vt || b->args[2]->type.dtype != p->vt ||
        b->args[1]->type.dtype != p->it || b->args[3]->type.dtype != p->it)
        return true;
    if (plumb_tensor_numel(out[0]) != plumb_tensor_numel(out[1])) return true;
    if (!af_shape(b)) return true;
    p->fl = plumb_dtype_is_float(p->vt);
    p->vsig = plumb_dtype_is_signed(p->vt);
    p->isig = plumb_dtype_is_signed(p->it);
    p->vbits = plumb_dtype_table[p->vt].bits;
    p->ibits = plumb_dtype_table[p->it].bits;
    int tab = af_table(x, op, p);
    if (tab <= 0) return tab == 0;
    /* [outer, len, inner] */
    const plumb_tensor *a0 = in[0];
    int pattern[PLUMB_MAX_RANK];
    uint64_t runlen[PLUMB_MAX_RANK];
    uint32_t nruns = 0;
    for (uint32_t d = 0; d < a0->rank; d++) {
        if (a0->dims[d] == 1) continue;
        int r = red[d] ? 1 : 0;
        if (nruns && pattern[nruns - 1] == r) runlen[nruns - 1] *= (uint64_t)a0->dims[d];
        else { pattern[nruns] = r; runlen[nruns++] = (uint64_t)a0->dims[d]; }
    }
    p->O = 1; p->L = 1; p->I = 1;
    uint32_t k = 0;
    if (k < nruns && pattern[k] == 0) p->O = runlen[k++];
    if (k < nruns && pattern[k] == 1) p->L = runlen[k++];
    if (k < nruns && pattern[k] == 0) p->I = runlen[k++];
    uint64_t nout = plumb_tensor_numel(out[0]);
    p->vinit = plumb_load_bits(p->vt, in[2]->data, 0);
    p->iinit = plumb_load_bits(p->it, in[3]->data, 0);
    memcpy(p->vinit_raw, in[2]->data, plumb_dtype_size(p->vt));
    if (plumb_tensor_numel(a0) == 0) {
        /* an empty reduced dim: every result is the init */
        for (uint64_t o = 0; o < nout; o++) {
            plumb_store_bits(p->vt, out[0]->data, (size_t)o, p->vinit);
            plumb_store_bits(p->it, out[1]->data, (size_t)o, p->iinit);
        }
        __atomic_fetch_add(&af_runs_n, 1, __ATOMIC_RELAXED);
        *done = true;
        return true;
    }
    if (k < nruns || p->O * p->I != nout) return true;
    if (gen) {
        /* the iota's dimension: stride gs and size gd in flat offsets */
        const plumb_tensor *t = in[1];
        uint32_t dim = (uint32_t)op->operands[1]->def->a.dimension;
        p->gen = true;
        p->gs = 1;
        for (uint32_t d = dim + 1; d < t->rank; d++) p->gs *= (uint64_t)t->dims[d];
        p->gd = (uint64_t)t->dims[dim];
        /* along a kept dim (or of size 1) an index is the same for every
         * element of a slice; along the reduced run it is (r / s) % gd of
         * the slice position r, non-decreasing when the dim is the run's
         * outermost (gs * gd = L * I) and every index fits the type's
         * positive range */
        bool in_run = p->gd > 1 && p->gs >= p->I && p->gs < p->L * p->I;
        uint64_t top = p->isig ? af_mask(p->ibits - 1) : af_mask(p->ibits);
        p->gmono = !in_run || (p->gs * p->gd == p->L * p->I && p->gd - 1 <= top);
    }
    p->init_nan = p->fl && isnan(af_fval(p->vk, p->vinit));
    p->v = in[0]->data;
    p->ix = in[1]->data;
    p->ov = out[0]->data;
    p->oi = out[1]->data;
    p->isa = rt_isa(x);
    p->nstrip = (p->I + AF_STRIP - 1) / AF_STRIP;
    uint64_t items = p->O * p->nstrip, per = p->L * (p->I < AF_STRIP ? p->I : AF_STRIP);
    uint64_t grain = per >= 65536 ? 1 : 65536 / (per ? per : 1);
    rt_parallel_for(x, items, grain, af_range, p);
    if (p->failed) return true;   /* a code the table lacks: the generic path recomputes everything */
    __atomic_fetch_add(&af_runs_n, 1, __ATOMIC_RELAXED);
    if (gen) __atomic_fetch_add(&af_gen_n, 1, __ATOMIC_RELAXED);
    *done = true;
    return true;
}

bool rt_argfold_takes_iota(const ir_op *op)
{
    if (op->code != PLUMB_OP_REDUCE || op->n_results != 2 || op->n_operands != 4 || op->n_regions != 1)
        return false;
    const ir_op *io = op->operands[1]->def;
    const ir_type *vt = &op->operands[0]->type, *it = &op->operands[1]->type;
    af_vk vk;
    if (!io || io->code != PLUMB_OP_IOTA || io->n_operands != 0 || io->n_regions || !ir_type_is_static(it) ||
        !ir_type_is_static(vt) || it->rank < 1 || vt->rank != it->rank || io->a.dimension < 0 ||
        (uint64_t)io->a.dimension >= it->rank || !af_index_type(it->dtype) || !af_value_kind(vt->dtype, &vk))
        return false;
    for (uint32_t d = 0; d < it->rank; d++)
        if (vt->dims[d] != it->dims[d]) return false;
    const ir_block *b = &op->regions[0];
    if (b->n_args != 4 || op->operands[2]->type.dtype != vt->dtype || op->operands[3]->type.dtype != it->dtype ||
        op->results[0]->type.dtype != vt->dtype || op->results[1]->type.dtype != it->dtype ||
        b->args[0]->type.dtype != vt->dtype || b->args[2]->type.dtype != vt->dtype ||
        b->args[1]->type.dtype != it->dtype || b->args[3]->type.dtype != it->dtype || !af_shape(b))
        return false;
    /* the [outer, len, inner] layout */
    bool red[PLUMB_MAX_RANK] = {false};
    for (uint32_t i = 0; i < op->a.dims.n; i++) {
        int64_t d = op->a.dims.v[i];
        if (d < 0 || (uint64_t)d >= it->rank || red[d]) return false;
        red[d] = true;
    }
    int pattern[PLUMB_MAX_RANK];
    uint32_t nruns = 0;
    for (uint32_t d = 0; d < it->rank; d++) {
        if (it->dims[d] == 1) continue;
        int r = red[d] ? 1 : 0;
        if (!nruns || pattern[nruns - 1] != r) pattern[nruns++] = r;
    }
    uint32_t k = 0;
    if (k < nruns && pattern[k] == 0) k++;
    if (k < nruns && pattern[k] == 1) k++;
    if (k < nruns && pattern[k] == 0) k++;
    return k == nruns;
}

/* Whether input 1 is an iota the plan did not materialize (plan.c,
 * gen_iotas): its header has no data though it has elements. */
static bool af_gen_input(const ir_op *op, plumb_tensor *const *in)
{
    const ir_op *d = op->n_operands == 4 ? op->operands[1]->def : NULL;
    return d && d->code == PLUMB_OP_IOTA && !in[1]->data && plumb_tensor_numel(in[1]) > 0;
}

bool rt_argfold(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out, const bool *red,
                bool *done)
{
    bool gen = af_gen_input(op, in);
    if (gen) {
        const ir_op *io = op->operands[1]->def;
        if (io->a.dimension < 0 || (uint64_t)io->a.dimension >= in[1]->rank)
            return rt_fail(x, io, PLUMB_ERR_INVALID, "iota_dimension %lld is not a dimension of the result",
                           (long long)io->a.dimension);
    }
    if (!af_run(x, op, in, out, red, gen, done)) return false;
    if (*done || !gen) return true;
    /* The fold does not apply after all: the iota's kernel writes its
     * tensor into scratch and the reduce runs on it, as unplanned. */
    const ir_op *io = op->operands[1]->def;
    plumb_tensor t = *in[1];
    size_t nb = t.nbytes ? t.nbytes : (size_t)plumb_tensor_numel(&t) * plumb_dtype_size(t.dtype);
    t.owned = false;
    t.nbytes = nb;
    if (!(t.data = rt_scratch(x, op, nb))) return false;
    plumb_tensor *to[1] = {&t};
    if (!rt_op_IOTA(x, io, NULL, to)) return false;
    plumb_tensor *in2[4] = {in[0], &t, in[2], in[3]};
    if (!rt_op_REDUCE(x, op, in2, out)) return false;
    __atomic_fetch_add(&af_genfb_n, 1, __ATOMIC_RELAXED);
    *done = true;
    return true;
}
