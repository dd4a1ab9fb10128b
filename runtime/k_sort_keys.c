/* Typed key sort for stablehlo.sort (rt_sort.h).
 *
 * The reference sorts each slice with a stable bottom-up merge sort whose
 * merge takes the right run's element only when comparator(right, left)
 * holds. For a comparator `compare DIR, a, b` on a total preorder of keys
 * (mirrored operands turn LT into GT and LE into GE) that yields:
 *   LT  ascending, equal keys in position order (stable);
 *   GT  descending, stable;
 *   LE  ascending, equal keys in decreasing position order: on a tie the
 *       right run (higher positions) goes first at every merge;
 *   GE  descending, equal keys in decreasing position order.
 * EQ and NE are no orders; they stay on the merge sort (k_index.c).
 *
 * Keys are unsigned integers in the compare's order: UNSIGNED the bits;
 * SIGNED the bits with the sign bit flipped (i1 as 0 < 1, as the
 * reference compares it under either type); TOTALORDER on a signed float
 * format all bits flipped when the sign is set, else the sign bit set
 * (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), the bits themselves
 * for f8E8M0FNU (no sign); FLOAT the same with -0 keyed as +0 (they are
 * equal), and a NaN, which makes the comparator no strict weak order,
 * sends the slice to the merge sort. GT/GE complement the key; LE/GE read
 * the slice backwards, so a stable ascending sort gives the required order.
 *
 * Slices of RADIX_MIN elements or more take an LSD radix sort (8-bit
 * digits, 11-bit from 64K elements; one histogram pass counts every digit
 * and a digit that every key shares is skipped); from MSD_MIN elements the
 * top 11 key bits go first (one pass over memory) and each bucket is then
 * sorted by LSD while it is in cache (for keys alone, the top bits are
 * counted while the keys are made and each sorted bucket is written out
 * as bits at once: msd_src_u32/u64); shorter slices take a merge sort
 * over insertion-sorted runs of 16. Every distribution pass is one helper
 * (offsets, then scatter_u32/u64). Contiguous 32-bit keys without FLOAT's
 * checks are made and mapped back four to a vector. The items:
 *   - one operand whose key maps its bits one to one (8/16/32/64-bit
 *     integers and floats): the keys alone, mapped back to bits on the way
 *     out; under FLOAT the keys are the totalOrder ones and the zeros'
 *     run is rewritten afterwards with the input's zeros in slice order;
 *   - keys of up to 32 bits: key << 32 | position in one u64, all
 *     distinct, so the sort's own stability does not matter;
 *   - 64-bit keys: keys and positions in two arrays, sorted stably.
 * Then every operand is permuted by the positions. */
#include <string.h>

#include "rt_sort.h"

enum { KK_UINT, KK_SINT, KK_SM };   /* key kinds: unsigned bits, sign flipped, sign-magnitude float */

#define RADIX_MIN 128         /* shorter slices: merge sort (3x slower at 256, measured) */
#define RUN 16                /* insertion-sorted runs of the merge sort */
#define MSD_MIN (1u << 18)    /* the top digit first */
#define DIGIT11_MIN 65536     /* 11-bit digits (8-bit below) */

bool rt_sort_keys_plan(rt_sort_keys *p, uint32_t operand, ir_cmp_dir dir, bool swapped, ir_cmp_type type,
                       plumb_dtype dt, uint32_t n, int64_t len)
{
    memset(p, 0, sizeof *p);
    if (len < 0 || (uint64_t)len > UINT32_MAX || plumb_dtype_is_complex(dt)) return false;
    if (swapped)
        dir = dir == IR_CMP_LT ? IR_CMP_GT : dir == IR_CMP_GT ? IR_CMP_LT : dir == IR_CMP_LE ? IR_CMP_GE
            : dir == IR_CMP_GE ? IR_CMP_LE : dir;
    if (dir != IR_CMP_LT && dir != IR_CMP_GT && dir != IR_CMP_LE && dir != IR_CMP_GE) return false;
    const plumb_dtype_info *info = plumb_dtype_get(dt);
    unsigned bits = info->bits;
    if (bits == 0 || bits > 64) return false;
    p->operand = operand;
    p->dt = dt;
    p->esz = (uint32_t)info->bytes;
    p->kbits = bits;
    p->sign = 1ull << (bits - 1);
    p->mask = bits == 64 ? ~0ull : (p->sign << 1) - 1;
    p->desc = dir == IR_CMP_GT || dir == IR_CMP_GE;
    p->ties_rev = dir == IR_CMP_LE || dir == IR_CMP_GE;
    bool flt = plumb_dtype_is_float(dt);
    if (flt != (type == IR_CMP_FLOAT || type == IR_CMP_TOTALORDER)) return false;
    if (flt) {
        const plumb_fpfmt *f = plumb_fpfmt_get(dt);
        bool has_sign = !f || f->nan != PLUMB_FPNAN_E8M0;
        p->kind = has_sign ? KK_SM : KK_UINT;
        if (type == IR_CMP_FLOAT) {
            p->nan_check = !f || f->nan != PLUMB_FPNAN_NONE;
            p->zero_merge = has_sign && !(f && f->nan == PLUMB_FPNAN_FNUZ);
            p->fmt = f;
            if (!f) p->inf = (((1ull << info->exp_bits) - 1) << info->mant_bits);
        }
    } else if (plumb_dtype_is_bool(dt)) {
        p->kind = KK_UINT;   /* 0 < 1 under SIGNED and UNSIGNED (the reference's compare) */
    } else if (type == IR_CMP_SIGNED) {
        p->kind = KK_SINT;
    } else if (type == IR_CMP_UNSIGNED) {
        p->kind = KK_UINT;
    } else {
        return false;
    }
    p->keys_only = n == 1 && bits == 8 * info->bytes && !plumb_dtype_is_bool(dt);
    return true;
}

uint64_t rt_sort_keys_scratch(const rt_sort_keys *p, int64_t len)
{
    uint64_t n = (uint64_t)len;
    if (p->keys_only) return n * (p->kbits <= 32 ? 8 : 16);
    return n * (p->kbits <= 32 ? 16 : 24);
}

/* ---- keys ------------------------------------------------------------------- */

static inline uint64_t load_raw(const char *d, uint32_t esz, size_t i)
{
    switch (esz) {
    case 1: return ((const uint8_t *)d)[i];
    case 2: { uint16_t v; memcpy(&v, d + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, d + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, d + 8 * i, 8); return v; }
    }
}

static inline void store_raw(char *d, uint32_t esz, size_t i, uint64_t v)
{
    switch (esz) {
    case 1: ((uint8_t *)d)[i] = (uint8_t)v; break;
    case 2: { uint16_t w = (uint16_t)v; memcpy(d + 2 * i, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(d + 4 * i, &w, 4); break; }
    default: memcpy(d + 8 * i, &v, 8); break;
    }
}

static inline bool is_nan(const rt_sort_keys *p, uint64_t b)
{
    if (p->fmt) return plumb_small_is_nan(p->fmt, (uint32_t)b);
    return (b & ~p->sign) > p->inf;
}

/* Keys: key = b ^ (b's sign ? xneg : xpos), branch free: UNSIGNED xors
 * nothing, SIGNED the sign bit, a sign-magnitude float the sign bit when
 * positive and every bit when negative (totalOrder). Back from a key k:
 * b = k ^ (k's sign ? xpos : xneg). */
static void key_xors(const rt_sort_keys *p, uint64_t *xpos, uint64_t *xneg)
{
    *xpos = p->kind == KK_UINT ? 0 : p->sign;
    *xneg = p->kind == KK_UINT ? 0 : p->kind == KK_SINT ? p->sign : p->mask;
}

typedef struct slice_stats {
    uint64_t nneg, nzero;   /* FLOAT: values below zero, zeros */
    bool nan;
} slice_stats;

enum { FORM_K32, FORM_K64, FORM_PACKED };

/* The keys of the n elements s[0], s[step], ... in the given form (u32
 * keys, u64 keys, or key << 32 | q), complemented by flip; under FLOAT
 * also the counts in st and, unless keys_only, -0 keyed as +0. */
#define EXTRACT(NAME, T)                                                                                 \
    static void NAME(const rt_sort_keys *p, const T *s, int64_t step, size_t n, int form, void *dst,     \
                     uint64_t flip, slice_stats *st)                                                     \
    {                                                                                                    \
        uint64_t xp, xn, sign = p->sign, mask = p->mask;                                                 \
        key_xors(p, &xp, &xn);                                                                           \
        xp ^= flip;                                                                                      \
        xn ^= flip;                                                                                      \
        uint64_t xd = xp ^ xn;                                                                           \
        unsigned top = p->kbits - 1;                                                                     \
        uint32_t *d32 = dst;                                                                             \
        uint64_t *d64 = dst;                                                                             \
        if (!p->nan_check && !p->zero_merge) {                                                           \
            for (size_t q = 0; q < n; q++) {                                                             \
                uint64_t b = (uint64_t)s[(int64_t)q * step] & mask;                                      \
                uint64_t k = b ^ xp ^ (xd & (0 - ((b >> top) & 1)));                                     \
                if (form == FORM_K32) d32[q] = (uint32_t)k;                                              \
                else if (form == FORM_K64) d64[q] = k;                                                   \
                else d64[q] = k << 32 | q;                                                               \
            }                                                                                            \
            return;                                                                                      \
        }                                                                                                \
        uint64_t nneg = 0, nzero = 0, zkey = sign ^ flip;                                                \
        bool nan = false, merge = p->zero_merge && !p->keys_only;                                        \
        for (size_t q = 0; q < n; q++) {                                                                 \
            uint64_t b = (uint64_t)s[(int64_t)q * step] & mask;                                          \
            if (p->nan_check) nan |= is_nan(p, b);                                                       \
            uint64_t neg = (b >> top) & 1, z = (b & ~sign) == 0;                                         \
            nzero += z;                                                                                  \
            nneg += neg & (z ^ 1);                                                                       \
            uint64_t k = b ^ xp ^ (xd & (0 - neg));                                                      \
            if (merge) k = z ? zkey : k;                                                                 \
            if (form == FORM_K32) d32[q] = (uint32_t)k;                                                  \
            else if (form == FORM_K64) d64[q] = k;                                                       \
            else d64[q] = k << 32 | q;                                                                   \
        }                                                                                                \
        st->nneg = nneg;                                                                                 \
        st->nzero = nzero;                                                                               \
        st->nan = nan;                                                                                   \
    }

EXTRACT(extract8, uint8_t)
EXTRACT(extract16, uint16_t)
EXTRACT(extract32, uint32_t)
EXTRACT(extract64, uint64_t)

/* Keys back to bits: d[q * stride] for the n keys k (u32 or u64). */
#define UNKEY(NAME, T, K)                                                                                \
    static void NAME(const rt_sort_keys *p, T *d, int64_t stride, size_t n, const K *k, uint64_t flip)   \
    {                                                                                                    \
        uint64_t xp, xn;                                                                                 \
        key_xors(p, &xp, &xn);                                                                           \
        uint64_t xd = xp ^ xn, sign = p->sign;                                                           \
        unsigned top = p->kbits - 1;                                                                     \
        for (size_t q = 0; q < n; q++) {                                                                 \
            uint64_t v = (uint64_t)k[q] ^ flip;                                                          \
            d[(int64_t)q * stride] = (T)(v ^ xn ^ (xd & (0 - ((v & sign) >> top))));                     \
        }                                                                                                \
    }

UNKEY(unkey8, uint8_t, uint32_t)
UNKEY(unkey16, uint16_t, uint32_t)
UNKEY(unkey32, uint32_t, uint32_t)
UNKEY(unkey64, uint64_t, uint64_t)

/* 32-bit elements read or written in order, four per 16-byte vector (the
 * baseline's registers): the maps of EXTRACT and UNKEY without FLOAT's
 * checks, the same xors. The scalar loops made keys at about 15
 * instructions an element (a fifth of a 1M f32 sort, `perf`). */
typedef uint32_t sk_v4u32 __attribute__((vector_size(16)));

static void keys32_contig(const rt_sort_keys *p, const uint32_t *s, size_t n, uint32_t *d, uint64_t flip)
{
    uint64_t xp, xn;
    key_xors(p, &xp, &xn);
    xp ^= flip;
    xn ^= flip;
    uint32_t p32 = (uint32_t)xp, d32 = (uint32_t)(xp ^ xn);
    const sk_v4u32 vp = {p32, p32, p32, p32}, vd = {d32, d32, d32, d32}, zero = {0, 0, 0, 0};
    size_t q = 0;
    for (; q + 4 <= n; q += 4) {
        sk_v4u32 b;
        memcpy(&b, s + q, 16);
        sk_v4u32 k = b ^ vp ^ (vd & (zero - (b >> 31)));
        memcpy(d + q, &k, 16);
    }
    for (; q < n; q++) d[q] = s[q] ^ p32 ^ (d32 & (0u - (s[q] >> 31)));
}

static void bits32_contig(const rt_sort_keys *p, uint32_t *d, size_t n, const uint32_t *k, uint64_t flip)
{
    uint64_t xp, xn;
    key_xors(p, &xp, &xn);
    uint32_t f32 = (uint32_t)flip, n32 = (uint32_t)xn, d32 = (uint32_t)(xp ^ xn);
    const sk_v4u32 vf = {f32, f32, f32, f32}, vn = {n32, n32, n32, n32}, vd = {d32, d32, d32, d32},
                   zero = {0, 0, 0, 0};
    size_t q = 0;
    for (; q + 4 <= n; q += 4) {
        sk_v4u32 v;
        memcpy(&v, k + q, 16);
        v ^= vf;
        sk_v4u32 b = v ^ vn ^ (vd & (zero - (v >> 31)));
        memcpy(d + q, &b, 16);
    }
    for (; q < n; q++) {
        uint32_t v = k[q] ^ f32;
        d[q] = v ^ n32 ^ (d32 & (0u - (v >> 31)));
    }
}

/* unkey32, in order when the stride is 1. */
static void unkey32s(const rt_sort_keys *p, uint32_t *d, int64_t stride, size_t n, const uint32_t *k, uint64_t flip)
{
    if (stride == 1) bits32_contig(p, d, n, k, flip);
    else unkey32(p, d, stride, n, k, flip);
}

/* The keys of slice elements [q0, q0 + n) in sort order. */
static void extract_part(const rt_sort_keys *p, const char *src, int64_t base, int64_t stride, int64_t len,
                         size_t q0, size_t n, int form, void *dst, uint64_t flip, slice_stats *st)
{
    /* LE/GE read the slice backwards */
    int64_t first = p->ties_rev ? len - 1 - (int64_t)q0 : (int64_t)q0;
    int64_t start = base + first * stride, step = p->ties_rev ? -stride : stride;
    memset(st, 0, sizeof *st);
    if (p->esz == 4 && step == 1 && form == FORM_K32 && !p->nan_check && !p->zero_merge) {
        keys32_contig(p, (const uint32_t *)(const void *)src + start, n, dst, flip);
        return;
    }
    switch (p->esz) {
    case 1: extract8(p, (const uint8_t *)src + start, step, n, form, dst, flip, st); break;
    case 2: extract16(p, (const uint16_t *)(const void *)src + start, step, n, form, dst, flip, st); break;
    case 4: extract32(p, (const uint32_t *)(const void *)src + start, step, n, form, dst, flip, st); break;
    default: extract64(p, (const uint64_t *)(const void *)src + start, step, n, form, dst, flip, st); break;
    }
}

static void extract(const rt_sort_keys *p, const char *src, int64_t base, int64_t stride, int64_t len, int form,
                    void *dst, uint64_t flip, slice_stats *st)
{
    extract_part(p, src, base, stride, len, 0, (size_t)len, form, dst, flip, st);
}

/* Element q of the slice in sort order (LE/GE read it backwards). */
static inline size_t at(const rt_sort_keys *p, int64_t base, int64_t stride, int64_t len, int64_t q)
{
    int64_t pos = p->ties_rev ? len - 1 - q : q;
    return (size_t)(base + pos * stride);
}

/* ---- sorts ------------------------------------------------------------------- */

/* Merge sort of whole items (equal items are identical, so stability is
 * moot): insertion-sorted runs of RUN, then bottom-up merges. */
#define MSORT(NAME, T)                                                                                   \
    static T *NAME(T *a, T *b, size_t n)                                                                 \
    {                                                                                                    \
        for (size_t lo = 0; lo < n; lo += RUN) {                                                         \
            size_t hi = lo + RUN < n ? lo + RUN : n;                                                     \
            for (size_t i = lo + 1; i < hi; i++) {                                                       \
                T v = a[i];                                                                              \
                size_t j = i;                                                                            \
                while (j > lo && a[j - 1] > v) {                                                         \
                    a[j] = a[j - 1];                                                                     \
                    j--;                                                                                 \
                }                                                                                        \
                a[j] = v;                                                                                \
            }                                                                                            \
        }                                                                                                \
        for (size_t w = RUN; w < n; w *= 2) {                                                            \
            for (size_t lo = 0; lo < n; lo += 2 * w) {                                                   \
                size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;              \
                size_t i = lo, j = mid, o = lo;                                                          \
                while (i < mid && j < hi) b[o++] = a[j] < a[i] ? a[j++] : a[i++];                        \
                while (i < mid) b[o++] = a[i++];                                                         \
                while (j < hi) b[o++] = a[j++];                                                          \
            }                                                                                            \
            T *t = a;                                                                                    \
            a = b;                                                                                       \
            b = t;                                                                                       \
        }                                                                                                \
        return a;                                                                                        \
    }

MSORT(msort_u32, uint32_t)
MSORT(msort_u64, uint64_t)

/* Counts to starting offsets (off may be cnt). */
static void offsets(const uint32_t *cnt, uint32_t *off, size_t nb)
{
    uint32_t s = 0;
    for (size_t k = 0; k < nb; k++) {
        uint32_t t = cnt[k];
        off[k] = s;
        s += t;
    }
}

/* One stable distribution pass: a[i] to b[off[digit]++], the digit being
 * bits [sh, sh + log2(m + 1)) of the item. */
#define SCATTER(NAME, T)                                                                                 \
    static void NAME(const T *a, T *b, size_t n, uint32_t *off, unsigned sh, T m)                        \
    {                                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                 \
            T v = a[i];                                                                                  \
            b[off[(v >> sh) & m]++] = v;                                                                 \
        }                                                                                                \
    }

SCATTER(scatter_u32, uint32_t)
SCATTER(scatter_u64, uint64_t)

/* LSD radix sort of a[0..n) by bits [lo, lo + nbits) of each item, stable;
 * b is scratch of n items; returns the buffer holding the result. */
#define RADIX(NAME, T, SCAT)                                                                             \
    static T *NAME(T *a, T *b, size_t n, unsigned lo, unsigned nbits)                                   \
    {                                                                                                    \
        unsigned db = n >= DIGIT11_MIN ? 11 : 8, nd = (nbits + db - 1) / db;                                   \
        size_t nb = (size_t)1 << db;                                                                     \
        T m = (T)(nb - 1);                                                                               \
        uint32_t cnt[8 * 256 > 6 * 2048 ? 8 * 256 : 6 * 2048];                                           \
        memset(cnt, 0, (size_t)nd * nb * sizeof *cnt);                                                   \
        if (nd == 2) {                                                                                   \
            for (size_t i = 0; i < n; i++) {                                                             \
                T v = a[i] >> lo;                                                                        \
                cnt[v & m]++;                                                                            \
                cnt[nb + ((v >> db) & m)]++;                                                             \
            }                                                                                            \
        } else if (nd == 3) {                                                                            \
            for (size_t i = 0; i < n; i++) {                                                             \
                T v = a[i] >> lo;                                                                        \
                cnt[v & m]++;                                                                            \
                cnt[nb + ((v >> db) & m)]++;                                                             \
                cnt[2 * nb + ((v >> 2 * db) & m)]++;                                                     \
            }                                                                                            \
        } else if (nd == 4) {                                                                            \
            for (size_t i = 0; i < n; i++) {                                                             \
                T v = a[i] >> lo;                                                                        \
                cnt[v & m]++;                                                                            \
                cnt[nb + ((v >> db) & m)]++;                                                             \
                cnt[2 * nb + ((v >> 2 * db) & m)]++;                                                     \
                cnt[3 * nb + ((v >> 3 * db) & m)]++;                                                     \
            }                                                                                            \
        } else {                                                                                         \
            for (size_t i = 0; i < n; i++) {                                                             \
                T v = a[i] >> lo;                                                                        \
                for (unsigned d = 0; d < nd; d++) cnt[d * nb + ((v >> (d * db)) & m)]++;                 \
            }                                                                                            \
        }                                                                                                \
        for (unsigned d = 0; d < nd; d++) {                                                              \
            uint32_t *c = cnt + d * nb;                                                                  \
            unsigned sh = lo + d * db;                                                                   \
            if (c[(a[0] >> sh) & m] == n) continue;                                                      \
            offsets(c, c, nb);                                                                           \
            SCAT(a, b, n, c, sh, m);                                                                     \
            T *t = a;                                                                                    \
            a = b;                                                                                       \
            b = t;                                                                                       \
        }                                                                                                \
        return a;                                                                                        \
    }

RADIX(lsd_u32, uint32_t, scatter_u32)
RADIX(lsd_u64, uint64_t, scatter_u64)

/* Long slices: the top 11 key bits first (one pass over memory), then each
 * bucket by LSD radix while it sits in cache; stable throughout. */
#define MSD(NAME, LSD, MS, T, SCAT)                                                                      \
    static T *NAME(T *a, T *b, size_t n, unsigned lo, unsigned nbits)                                   \
    {                                                                                                    \
        if (n < MSD_MIN || nbits <= 16) return LSD(a, b, n, lo, nbits);                                  \
        unsigned tsh = lo + nbits - 11;                                                                  \
        uint32_t tc[2048], to[2048];                                                                     \
        memset(tc, 0, sizeof tc);                                                                        \
        for (size_t i = 0; i < n; i++) tc[(a[i] >> tsh) & 2047]++;                                       \
        if (tc[(a[0] >> tsh) & 2047] == n) return LSD(a, b, n, lo, nbits);                               \
        offsets(tc, to, 2048);                                                                           \
        SCAT(a, b, n, to, tsh, 2047);                                                                    \
        size_t s1 = 0;                                                                                   \
        for (size_t k = 0; k < 2048; k++) {                                                              \
            size_t cn = tc[k];                                                                           \
            if (cn >= 2) {                                                                               \
                T *r = cn >= RADIX_MIN ? LSD(b + s1, a + s1, cn, lo, nbits - 11) : MS(b + s1, a + s1, cn); \
                if (r != b + s1) memcpy(b + s1, r, cn * sizeof *r);                                      \
            }                                                                                            \
            s1 += cn;                                                                                    \
        }                                                                                                \
        return b;                                                                                        \
    }

MSD(radix_u32, lsd_u32, msort_u32, uint32_t, scatter_u32)
MSD(radix_u64, lsd_u64, msort_u64, uint64_t, scatter_u64)

/* Keys k[0..n) back to bits at slice positions [q0, q0 + n) of dst. */
static void unkey_part(const rt_sort_keys *p, char *dst, int64_t base, int64_t stride, size_t q0, size_t n,
                       const void *k, uint64_t flip)
{
    int64_t o = base + (int64_t)q0 * stride;
    switch (p->esz) {
    case 1: unkey8(p, (uint8_t *)dst + o, stride, n, k, flip); break;
    case 2: unkey16(p, (uint16_t *)(void *)dst + o, stride, n, k, flip); break;
    case 4: unkey32s(p, (uint32_t *)(void *)dst + o, stride, n, k, flip); break;
    default: unkey64(p, (uint64_t *)(void *)dst + o, stride, n, k, flip); break;
    }
}

/* Long slices of keys alone: the keys are made into a SRC_CHUNK elements
 * at a time and their top 11 bits counted while the chunk is in L1 (and
 * the FLOAT counts summed in st), then scattered by those bits into b;
 * each bucket is sorted while it is in cache (a as scratch) and written
 * back as bits into dst at once. Against radix_u32/u64 between extract
 * and unkey, that saves the count pass's read of the keys and the final
 * read of the sorted keys; the buckets and their sorts are theirs, so the
 * result is too. False, with nothing written, when st->nan is set. */
#define SRC_CHUNK 1024
#define MSD_SRC(NAME, T, FORM, LSD, MS, SCAT)                                                            \
    static bool NAME(const rt_sort_keys *p, const char *src, char *dst, int64_t base, int64_t stride,    \
                     int64_t len, T *a, T *b, uint64_t flip, slice_stats *st)                            \
    {                                                                                                    \
        size_t n = (size_t)len;                                                                          \
        unsigned nbits = p->kbits, tsh = nbits - 11;                                                     \
        uint32_t tc[2048], to[2048];                                                                     \
        memset(tc, 0, sizeof tc);                                                                        \
        memset(st, 0, sizeof *st);                                                                       \
        for (size_t q0 = 0; q0 < n; q0 += SRC_CHUNK) {                                                   \
            size_t cn = n - q0 < SRC_CHUNK ? n - q0 : SRC_CHUNK;                                         \
            slice_stats cs;                                                                              \
            extract_part(p, src, base, stride, len, q0, cn, FORM, a + q0, flip, &cs);                    \
            st->nneg += cs.nneg;                                                                         \
            st->nzero += cs.nzero;                                                                       \
            st->nan |= cs.nan;                                                                           \
            for (size_t i = q0; i < q0 + cn; i++) tc[(a[i] >> tsh) & 2047]++;                            \
        }                                                                                                \
        if (st->nan) return false;                                                                       \
        offsets(tc, to, 2048);                                                                           \
        SCAT(a, b, n, to, tsh, 2047);                                                                    \
        size_t s1 = 0;                                                                                   \
        for (size_t k = 0; k < 2048; k++) {                                                              \
            size_t cn = tc[k];                                                                           \
            if (cn == 0) continue;                                                                       \
            const T *r = b + s1;                                                                         \
            if (cn >= 2)                                                                                 \
                r = cn >= RADIX_MIN ? LSD(b + s1, a + s1, cn, 0, nbits - 11) : MS(b + s1, a + s1, cn);   \
            unkey_part(p, dst, base, stride, s1, cn, r, flip);                                           \
            s1 += cn;                                                                                    \
        }                                                                                                \
        return true;                                                                                     \
    }

MSD_SRC(msd_src_u32, uint32_t, FORM_K32, lsd_u32, msort_u32, scatter_u32)
MSD_SRC(msd_src_u64, uint64_t, FORM_K64, lsd_u64, msort_u64, scatter_u64)


/* 64-bit keys k with positions i, stably: k and i hold the result on
 * return (copied back from the scratch when the last pass left it there). */
static void sort_kv64(uint64_t *k, uint32_t *i, uint64_t *tk, uint32_t *ti, size_t n)
{
    uint64_t *ka = k, *kb = tk;
    uint32_t *ia = i, *ib = ti;
    if (n >= RADIX_MIN) {
        unsigned db = n >= 65536 ? 11 : 8, nd = (64 + db - 1) / db;
        size_t nb = (size_t)1 << db;
        uint64_t m = nb - 1;
        uint32_t cnt[8 * 256 > 6 * 2048 ? 8 * 256 : 6 * 2048];
        memset(cnt, 0, (size_t)nd * nb * sizeof *cnt);
        for (size_t x = 0; x < n; x++)
            for (unsigned d = 0; d < nd; d++) cnt[d * nb + ((ka[x] >> (d * db)) & m)]++;
        for (unsigned d = 0; d < nd; d++) {
            uint32_t *c = cnt + d * nb;
            unsigned sh = d * db;
            if (c[(ka[0] >> sh) & m] == n) continue;
            offsets(c, c, nb);
            for (size_t x = 0; x < n; x++) {
                uint32_t o = c[(ka[x] >> sh) & m]++;
                kb[o] = ka[x];
                ib[o] = ia[x];
            }
            uint64_t *tk2 = ka; ka = kb; kb = tk2;
            uint32_t *ti2 = ia; ia = ib; ib = ti2;
        }
    } else {
        for (size_t lo = 0; lo < n; lo += RUN) {
            size_t hi = lo + RUN < n ? lo + RUN : n;
            for (size_t x = lo + 1; x < hi; x++) {
                uint64_t v = ka[x];
                uint32_t w = ia[x];
                size_t j = x;
                while (j > lo && ka[j - 1] > v) {   /* strictly greater: stable */
                    ka[j] = ka[j - 1];
                    ia[j] = ia[j - 1];
                    j--;
                }
                ka[j] = v;
                ia[j] = w;
            }
        }
        for (size_t w = RUN; w < n; w *= 2) {
            for (size_t lo = 0; lo < n; lo += 2 * w) {
                size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
                size_t x = lo, j = mid, o = lo;
                while (x < mid && j < hi) {
                    if (ka[j] < ka[x]) { kb[o] = ka[j]; ib[o++] = ia[j++]; }
                    else { kb[o] = ka[x]; ib[o++] = ia[x++]; }
                }
                while (x < mid) { kb[o] = ka[x]; ib[o++] = ia[x++]; }
                while (j < hi) { kb[o] = ka[j]; ib[o++] = ia[j++]; }
            }
            uint64_t *tk2 = ka; ka = kb; kb = tk2;
            uint32_t *ti2 = ia; ia = ib; ib = ti2;
        }
    }
    if (ka != k) {
        memcpy(k, ka, n * sizeof *k);
        memcpy(i, ia, n * sizeof *i);
    }
}

/* ---- slices ------------------------------------------------------------------ */

/* out[q] = in[pos[q]] along the slice, for one operand of esz bytes. */
static void permute(char *o, const char *s, size_t esz, int64_t base, int64_t stride, int64_t len,
                    const uint64_t *pos)
{
    size_t b = (size_t)base, st = (size_t)stride;
    switch (esz) {
    case 1:
        for (int64_t q = 0; q < len; q++) ((uint8_t *)o)[b + (size_t)q * st] = ((const uint8_t *)s)[b + pos[q] * st];
        break;
    case 2:
        for (int64_t q = 0; q < len; q++) memcpy(o + 2 * (b + (size_t)q * st), s + 2 * (b + pos[q] * st), 2);
        break;
    case 4:
        for (int64_t q = 0; q < len; q++) memcpy(o + 4 * (b + (size_t)q * st), s + 4 * (b + pos[q] * st), 4);
        break;
    case 8:
        for (int64_t q = 0; q < len; q++) memcpy(o + 8 * (b + (size_t)q * st), s + 8 * (b + pos[q] * st), 8);
        break;
    default:
        for (int64_t q = 0; q < len; q++) memcpy(o + esz * (b + (size_t)q * st), s + esz * (b + pos[q] * st), esz);
        break;
    }
}

static void permute_all(const rt_sort_keys *p, plumb_tensor *const *in, plumb_tensor *const *out, uint32_t n,
                        int64_t base, int64_t stride, int64_t len, const uint64_t *pos)
{
    (void)p;
    for (uint32_t k = 0; k < n; k++)
        permute(out[k]->data, in[k]->data, plumb_dtype_size(in[k]->dtype), base, stride, len, pos);
}

bool rt_sort_keys_slice(const rt_sort_keys *p, plumb_tensor *const *in, plumb_tensor *const *out, uint32_t n,
                        int64_t base, int64_t stride, int64_t len, void *scratch)
{
    const char *src = in[p->operand]->data;
    uint64_t kmask = p->kbits == 64 ? ~0ull : (1ull << p->kbits) - 1, flip = p->desc ? kmask : 0;
    size_t ln = (size_t)len;
    slice_stats st;
    if (len == 0) return true;
    if (p->keys_only) {
        char *dst = out[0]->data;
        if (ln >= MSD_MIN && p->kbits > 16) {
            bool ok = p->kbits <= 32 ? msd_src_u32(p, src, dst, base, stride, len, scratch, (uint32_t *)scratch + ln, flip, &st)
                                     : msd_src_u64(p, src, dst, base, stride, len, scratch, (uint64_t *)scratch + ln, flip, &st);
            if (!ok) return false;
        } else if (p->kbits <= 32) {
            uint32_t *a = scratch, *b = a + ln;
            extract(p, src, base, stride, len, FORM_K32, a, flip, &st);
            if (st.nan) return false;
            uint32_t *r = ln >= RADIX_MIN ? radix_u32(a, b, ln, 0, p->kbits) : msort_u32(a, b, ln);
            switch (p->esz) {
            case 1: unkey8(p, (uint8_t *)dst + base, stride, ln, r, flip); break;
            case 2: unkey16(p, (uint16_t *)(void *)dst + base, stride, ln, r, flip); break;
            default: unkey32s(p, (uint32_t *)(void *)dst + base, stride, ln, r, flip); break;
            }
        } else {
            uint64_t *a = scratch, *b = a + ln;
            extract(p, src, base, stride, len, FORM_K64, a, flip, &st);
            if (st.nan) return false;
            uint64_t *r = ln >= RADIX_MIN ? radix_u64(a, b, ln, 0, 64) : msort_u64(a, b, ln);
            unkey64(p, (uint64_t *)(void *)dst + base, stride, ln, r, flip);
        }
        if (p->zero_merge && st.nzero > 1) {
            /* -0 and +0 are equal under FLOAT: the zeros' run holds them in slice order */
            int64_t z = (int64_t)(p->desc ? (uint64_t)len - st.nneg - st.nzero : st.nneg);
            for (int64_t q = 0; q < len; q++) {
                uint64_t v = load_raw(src, p->esz, at(p, base, stride, len, q));
                if ((v & ~p->sign) == 0) store_raw(dst, p->esz, (size_t)(base + z++ * stride), v);
            }
        }
        return true;
    }
    uint64_t *pos;
    if (p->kbits <= 32) {
        uint64_t *a = scratch, *b = a + ln;
        extract(p, src, base, stride, len, FORM_PACKED, a, flip, &st);
        if (st.nan) return false;
        pos = ln >= RADIX_MIN ? radix_u64(a, b, ln, 32, p->kbits) : msort_u64(a, b, ln);
        for (size_t q = 0; q < ln; q++) pos[q] &= 0xffffffffu;
    } else {
        uint64_t *k = scratch, *tk = k + ln;
        uint32_t *ix = (uint32_t *)(tk + ln), *ti = ix + ln;
        extract(p, src, base, stride, len, FORM_K64, k, flip, &st);
        if (st.nan) return false;
        for (size_t q = 0; q < ln; q++) ix[q] = (uint32_t)q;
        sort_kv64(k, ix, tk, ti, ln);
        pos = k;
        for (size_t q = 0; q < ln; q++) pos[q] = ix[q];
    }
    if (p->ties_rev)
        for (size_t q = 0; q < ln; q++) pos[q] = ln - 1 - pos[q];
    permute_all(p, in, out, n, base, stride, len, pos);
    return true;
}
