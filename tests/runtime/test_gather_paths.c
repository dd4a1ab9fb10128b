/* gather's short-row path (runtime/k_index.c gather_short_range): rows of
 * 1, 2, 4, 8 or 16 bytes, decoded a block at a time into operand offsets
 * (a typed loop per index type when each row has one evenly spaced index
 * element, the general counted-up decoding otherwise) and then copied.
 * Every program is compared with the reference interpreter bit for bit at
 * every ISA level the CPU has, on 1 and 2 threads (rt_check_exact). The
 * expected bits come from the reference's gather, which clamps each start
 * into [0, operand dim - slice size] as the StableHLO spec's gather
 * semantics say (clamp(0, start, dim - size)); unsigned indices whose
 * value is past int64's range clamp to the top as every other too-large
 * start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

typedef struct ilist {
    uint32_t n;
    int64_t v[PLUMB_MAX_RANK];
} ilist;

static ilist L(uint32_t n, ...)
{
    ilist l;
    memset(&l, 0, sizeof l);
    va_list ap;
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++) l.v[i] = va_arg(ap, int64_t);
    va_end(ap);
    l.n = n;
    return l;
}

static bool has(const ilist *l, int64_t d)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == d) return true;
    return false;
}

static void list_attr(char *buf, size_t len, const char *name, const ilist *l)
{
    buf[0] = 0;
    if (!l->n) return;
    size_t o = (size_t)snprintf(buf, len, "%s = [", name);
    for (uint32_t i = 0; i < l->n; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? ", " : "", (long long)l->v[i]);
    snprintf(buf + o, len - o, "], ");
}

static int64_t rnd(int64_t lo, int64_t hi)   /* uniform in [lo, hi] */
{
    return lo + (int64_t)(rt_rand() % (uint64_t)(hi - lo + 1));
}

/* Start indices mostly in [-3, max + 3] (in range and out of range on both
 * sides; negative ones are huge values in unsigned types), and every 13th
 * one the type's smallest or largest value (INT64_MIN, UINT64_MAX, ...). */
static plumb_tensor *index_tensor(plumb_dtype t, const ilist *dims, int64_t max)
{
    plumb_tensor *x = rt_rand_tensor(t, dims->n, dims->v, false);
    uint64_t n = plumb_tensor_numel(x);
    uint32_t bits = (uint32_t)plumb_dtype_size(t) * 8;
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool uns = plumb_dtype_is_unsigned(t);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)rnd(-3, max + 3);
        if (i % 13 == 5) v = uns ? mask : mask >> 1;                    /* largest */
        if (i % 13 == 9) v = uns ? 0 : ~(mask >> 1);                    /* smallest */
        if (!uns && bits < 64 && (int64_t)v > (int64_t)(mask >> 1)) v = mask >> 1;
        plumb_store_bits(t, x->data, (size_t)i, v & mask);
    }
    return x;
}

typedef struct gspec {
    ilist odims, sizes, offset, collapsed, obatch, sbatch, smap, idims;
    int64_t ivd;
} gspec;

static void run_gather(const gspec *g, plumb_dtype t, plumb_dtype it)
{
    ilist wdims = {0}, rdims = {0}, bdims = {0};
    for (uint32_t d = 0; d < g->odims.n; d++)
        if (!has(&g->collapsed, d) && !has(&g->obatch, d)) wdims.v[wdims.n++] = g->sizes.v[d];
    for (uint32_t d = 0; d < g->idims.n; d++)
        if ((int64_t)d != g->ivd) bdims.v[bdims.n++] = g->idims.v[d];
    rdims.n = bdims.n + wdims.n;
    uint32_t bi = 0, wi = 0;
    for (uint32_t d = 0; d < rdims.n; d++) rdims.v[d] = has(&g->offset, d) ? wdims.v[wi++] : bdims.v[bi++];
    int64_t max = 0;
    for (uint32_t d = 0; d < g->odims.n; d++) max = g->odims.v[d] > max ? g->odims.v[d] : max;

    char ot[128], ity[128], rty[128], a1[96], a2[96], a3[96], a4[96], a5[96], src[2048], sz[96];
    rt_ty(ot, sizeof ot, t, g->odims.n, g->odims.v);
    rt_ty(ity, sizeof ity, it, g->idims.n, g->idims.v);
    rt_ty(rty, sizeof rty, t, rdims.n, rdims.v);
    list_attr(a1, sizeof a1, "offset_dims", &g->offset);
    list_attr(a2, sizeof a2, "collapsed_slice_dims", &g->collapsed);
    list_attr(a3, sizeof a3, "operand_batching_dims", &g->obatch);
    list_attr(a4, sizeof a4, "start_indices_batching_dims", &g->sbatch);
    list_attr(a5, sizeof a5, "start_index_map", &g->smap);
    size_t o = 0;
    for (uint32_t d = 0; d < g->sizes.n; d++)
        o += (size_t)snprintf(sz + o, sizeof sz - o, "%s%lld", d ? ", " : "", (long long)g->sizes.v[d]);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%i: %s) -> %s {\n"
             "  %%g = \"stablehlo.gather\"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<%s%s%s%s%sindex_vector_dim = %lld>, "
             "slice_sizes = array<i64: %s>}> : (%s, %s) -> %s\n"
             "  func.return %%g : %s\n}\n",
             ot, ity, rty, a1, a2, a3, a4, a5, (long long)g->ivd, sz, ot, ity, rty, rty);
    plumb_tensor *in[2] = {rt_rand_tensor(t, g->odims.n, g->odims.v, true), index_tensor(it, &g->idims, max)};
    /* random bits: data that is only moved (NaN payloads, every pattern) */
    uint64_t n = plumb_tensor_numel(in[0]);
    for (uint64_t i = 0; i < n; i++)
        plumb_store_bits(t, in[0]->data, (size_t)i, t == PLUMB_I1 ? rt_rand() & 1 : rt_rand());
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* element types of 1, 2, 4, 8 and 16 bytes */
static const plumb_dtype elem_types[] = {PLUMB_I8, PLUMB_F16, PLUMB_F32, PLUMB_F64, PLUMB_C128, PLUMB_I1, PLUMB_BF16,
                                         PLUMB_UI32, PLUMB_I64, PLUMB_C64};
/* every index type */
static const plumb_dtype idx_types[] = {PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64,
                                        PLUMB_UI8, PLUMB_UI16, PLUMB_UI32, PLUMB_UI64};
/* lengths: 0, 1, odd, around the decoding block of 512 rows, and one past
 * the parallel grain (16384) so that 2 threads split the rows */
static const int64_t lengths[] = {0, 1, 7, 511, 512, 513, 1537, 40001};

/* take (one index element per row: the typed decoding loop), every index
 * type with every element size and every length, indices out of range on
 * both sides and at the type's extremes, with the index vector dimension
 * trailing (K x 1), implicit (K) or leading (1 x K): the reference's bits. */
static void test_take_index_types(void **state)
{
    (void)state;
    for (size_t ti = 0; ti < NELEM(idx_types); ti++)
        for (size_t ei = 0; ei < 5; ei++) {
            plumb_dtype it = idx_types[ti], t = elem_types[(ei + ti) % NELEM(elem_types)];
            int64_t K = lengths[(ti * 5 + ei) % NELEM(lengths)], N = rnd(1, 300);
            gspec g;
            memset(&g, 0, sizeof g);
            g.odims = L(1, N);
            g.sizes = L(1, (int64_t)1);
            g.collapsed = L(1, (int64_t)0);
            g.smap = L(1, (int64_t)0);
            switch (ei % 3) {
            case 0: g.idims = L(2, K, (int64_t)1); g.ivd = 1; break;
            case 1: g.idims = L(1, K); g.ivd = 1; break;
            default: g.idims = L(2, (int64_t)1, K); g.ivd = 0; break;
            }
            run_gather(&g, t, it);
        }
}

/* Short windows of several elements (2 x f32 = 8 bytes, 2 x f64 = 16,
 * 4 x i8 = 4, 2 x f16 = 4) starting at any element, so the clamp bound is
 * dim - size and the offsets are not multiples of the row size; and rows
 * of a rank-3 operand indexed in its middle dimension with the others of
 * extent 1 kept (offset dims): every length. */
static void test_take_windows(void **state)
{
    (void)state;
    static const plumb_dtype wt[] = {PLUMB_F32, PLUMB_F64, PLUMB_I8, PLUMB_F16};
    static const int64_t ws[] = {2, 2, 4, 2};
    for (size_t li = 0; li < NELEM(lengths); li++) {
        size_t w = li % NELEM(wt);
        int64_t K = lengths[li], N = rnd(4, 200);
        gspec g;
        memset(&g, 0, sizeof g);
        g.odims = L(1, N);
        g.sizes = L(1, ws[w]);
        g.smap = L(1, (int64_t)0);
        g.idims = L(2, K, (int64_t)1);
        g.ivd = 1;
        g.offset = L(1, (int64_t)1);
        run_gather(&g, wt[w], idx_types[li % NELEM(idx_types)]);

        memset(&g, 0, sizeof g);
        g.odims = L(3, (int64_t)1, N, (int64_t)1);
        g.sizes = L(3, (int64_t)1, (int64_t)1, (int64_t)1);
        g.collapsed = L(1, (int64_t)1);
        g.smap = L(1, (int64_t)1);
        g.idims = L(2, K, (int64_t)1);
        g.ivd = 1;
        g.offset = L(2, (int64_t)1, (int64_t)2);
        run_gather(&g, elem_types[li % NELEM(elem_types)], idx_types[(li + 3) % NELEM(idx_types)]);
    }
}

/* Layouts the typed loop does not take, through the general decoding:
 * 2-component start indices with the index vector dimension trailing and
 * leading, index batch dimensions on both sides of the index vector
 * dimension, 3-component starts into a rank-3 operand in a permuted map,
 * and batching dimensions; plus several batch dimensions with one index
 * element (the typed loop, rows still evenly spaced). Every length. */
static void test_take_general_layouts(void **state)
{
    (void)state;
    for (size_t li = 0; li < NELEM(lengths); li++)
        for (int form = 0; form < 5; form++) {
            int64_t K = lengths[li], M = rnd(1, 9), N = rnd(1, 70), P = rnd(1, 5);
            plumb_dtype t = elem_types[(li + (size_t)form) % NELEM(elem_types)];
            plumb_dtype it = idx_types[(li * 3 + (size_t)form) % NELEM(idx_types)];
            gspec g;
            memset(&g, 0, sizeof g);
            switch (form) {
            case 0:   /* 2-component starts, index vector trailing */
                g.odims = L(2, M, N);
                g.sizes = L(2, (int64_t)1, (int64_t)1);
                g.collapsed = L(2, (int64_t)0, (int64_t)1);
                g.smap = L(2, (int64_t)1, (int64_t)0);
                g.idims = L(2, K, (int64_t)2);
                g.ivd = 1;
                break;
            case 1:   /* 2-component starts, index vector leading */
                g.odims = L(2, M, N);
                g.sizes = L(2, (int64_t)1, (int64_t)1);
                g.collapsed = L(2, (int64_t)0, (int64_t)1);
                g.smap = L(2, (int64_t)0, (int64_t)1);
                g.idims = L(2, (int64_t)2, K);
                g.ivd = 0;
                break;
            case 2:   /* 3-component starts, index vector in the middle of two batch dims */
                g.odims = L(3, M, N, P);
                g.sizes = L(3, (int64_t)1, (int64_t)1, (int64_t)1);
                g.collapsed = L(3, (int64_t)0, (int64_t)1, (int64_t)2);
                g.smap = L(3, (int64_t)2, (int64_t)0, (int64_t)1);
                g.idims = L(3, (int64_t)2, (int64_t)3, K);
                g.ivd = 1;
                break;
            case 3:   /* batching dimension pair */
                g.odims = L(2, M, N);
                g.sizes = L(2, (int64_t)1, (int64_t)1);
                g.collapsed = L(1, (int64_t)1);
                g.obatch = L(1, (int64_t)0);
                g.sbatch = L(1, (int64_t)1);
                g.smap = L(1, (int64_t)1);
                g.idims = L(3, K, M, (int64_t)1);
                g.ivd = 2;
                break;
            default:  /* two batch dims around a 1-element index vector: evenly spaced */
                g.odims = L(1, N);
                g.sizes = L(1, (int64_t)1);
                g.collapsed = L(1, (int64_t)0);
                g.smap = L(1, (int64_t)0);
                g.idims = L(3, (int64_t)3, (int64_t)1, K);
                g.ivd = 1;
                break;
            }
            run_gather(&g, t, it);
        }
}

static int teardown(void **state)
{
    (void)state;
    rt_free_all();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_index_types),
        cmocka_unit_test(test_take_windows),
        cmocka_unit_test(test_take_general_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
