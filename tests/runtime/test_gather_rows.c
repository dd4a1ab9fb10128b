/* gather and scatter as row copies (runtime/k_index.c): random shapes of
 * every layout family the row path takes (rank 1 to 4 operands, partial
 * leading window dimension, index vectors leading, trailing or implicit,
 * permuted start maps, several index batch dimensions, batching dimensions,
 * empty index sets) and of the layouts that must stay on the element path
 * (offset or update window dimensions not trailing, windows that are not one
 * contiguous run), on every element type, with start indices out of range on
 * both sides (gather clamps them, scatter skips the window). Each program is
 * compared with the reference bit for bit at every ISA level on 1 and 2
 * threads; sizes reach past the kernels' parallel grain so the 2-thread
 * runs really split the rows (gather) and the columns (scatter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"

#include "runtime/rt_test.h"

#define MAXR PLUMB_MAX_RANK

typedef struct ilist {
    uint32_t n;
    int64_t v[MAXR];
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

static void type_str(char *buf, size_t len, plumb_dtype t, const ilist *dims)
{
    rt_ty(buf, len, t, dims->n, dims->v);
}

/* "name = [a, b], " or nothing for an empty list */
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

static plumb_tensor *tensor_of(plumb_dtype t, const ilist *dims)
{
    return rt_rand_tensor(t, dims->n, dims->v, true);
}

/* Start indices in [-3, max + 3]: in range, and out of range on both sides
 * (unsigned index types turn the negative ones into huge values). */
static plumb_tensor *index_tensor(plumb_dtype t, const ilist *dims, int64_t max)
{
    plumb_tensor *x = tensor_of(t, dims);
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        int64_t v = rnd(-3, max + 3);
        if (t == PLUMB_I8 && v > 127) v = 127;
        plumb_store_bits(t, x->data, (size_t)i, (uint64_t)v);
    }
    return x;
}

/* Random bits for data that is only moved (NaN payloads, every pattern). */
static void scramble(plumb_tensor *x)
{
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++)
        plumb_store_bits(x->dtype, x->data, (size_t)i, x->dtype == PLUMB_I1 ? rt_rand() & 1 : rt_rand());
}

static const plumb_dtype data_types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I1,  PLUMB_I8,
                                         PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8, PLUMB_UI32, PLUMB_UI64};
static const plumb_dtype index_types[] = {PLUMB_I32, PLUMB_I64, PLUMB_UI32, PLUMB_I8};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static plumb_dtype pick(const plumb_dtype *v, size_t n)
{
    return v[rt_rand() % n];
}

/* ---- gather ------------------------------------------------------------------- */

typedef struct gspec {
    ilist odims, sizes, offset, collapsed, obatch, sbatch, smap, idims;
    int64_t ivd;
} gspec;

static void run_gather(const gspec *g, plumb_dtype t, plumb_dtype it)
{
    /* the result: index batch dimensions in order, offset dims at their places */
    ilist wdims = {0}, rdims = {0};
    for (uint32_t d = 0; d < g->odims.n; d++)
        if (!has(&g->collapsed, d) && !has(&g->obatch, d)) wdims.v[wdims.n++] = g->sizes.v[d];
    ilist bdims = {0};
    for (uint32_t d = 0; d < g->idims.n; d++)
        if ((int64_t)d != g->ivd) bdims.v[bdims.n++] = g->idims.v[d];
    rdims.n = bdims.n + wdims.n;
    uint32_t bi = 0, wi = 0;
    for (uint32_t d = 0; d < rdims.n; d++) rdims.v[d] = has(&g->offset, d) ? wdims.v[wi++] : bdims.v[bi++];
    int64_t max = 0;
    for (uint32_t d = 0; d < g->odims.n; d++) max = g->odims.v[d] > max ? g->odims.v[d] : max;

    char ot[128], ity[128], rty[128], a1[96], a2[96], a3[96], a4[96], a5[96], src[2048], sz[96];
    type_str(ot, sizeof ot, t, &g->odims);
    type_str(ity, sizeof ity, it, &g->idims);
    type_str(rty, sizeof rty, t, &rdims);
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
    plumb_tensor *in[2] = {tensor_of(t, &g->odims), index_tensor(it, &g->idims, max)};
    scramble(in[0]);
    rt_check_exact(src, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
}

/* Row-path gathers of every family, random sizes (K = 0 sometimes), every
 * element type, clamped starts: the reference's bits. */
static void test_gather_row_path(void **state)
{
    (void)state;
    for (int rep = 0; rep < 48; rep++) {
        int64_t K = rep % 8 == 7 ? 0 : rnd(1, rep % 4 == 0 ? 3000 : 40);
        int64_t N = rnd(1, 50), D = rnd(1, rep % 4 == 0 ? 24 : 9);
        plumb_dtype t = pick(data_types, NELEM(data_types)), it = pick(index_types, NELEM(index_types));
        gspec g;
        memset(&g, 0, sizeof g);
        switch (rep % 6) {
        case 0:   /* embedding lookup; index vector implicit, trailing or leading */
            g.odims = L(2, N, D);
            g.sizes = L(2, (int64_t)1, D);
            g.collapsed = L(1, (int64_t)0);
            g.smap = L(1, (int64_t)0);
            if (rep % 3 == 0) { g.idims = L(1, K); g.ivd = 1; g.offset = L(1, (int64_t)1); }
            else if (rep % 3 == 1) { g.idims = L(2, K, (int64_t)1); g.ivd = 1; g.offset = L(1, (int64_t)1); }
            else { g.idims = L(2, (int64_t)1, K); g.ivd = 0; g.offset = L(1, (int64_t)1); }
            break;
        case 1: { /* rank 3, partial middle extent, two start indices */
            int64_t B = rnd(1, 6), b = rnd(1, B);
            g.odims = L(3, N, B, D);
            g.sizes = L(3, (int64_t)1, b, D);
            g.collapsed = L(1, (int64_t)0);
            g.smap = L(2, (int64_t)0, (int64_t)1);
            g.idims = L(2, K, (int64_t)2);
            g.ivd = 1;
            g.offset = L(2, (int64_t)1, (int64_t)2);
            break;
        }
        case 2: { /* rank 4, permuted start map, two index batch dims */
            int64_t A = rnd(1, 5), C = rnd(1, 5), c = rnd(1, C), K2 = rnd(1, 4);
            g.odims = L(4, A, N, C, D);
            g.sizes = L(4, (int64_t)1, (int64_t)1, c, D);
            g.collapsed = L(2, (int64_t)0, (int64_t)1);
            g.smap = L(3, (int64_t)1, (int64_t)0, (int64_t)2);
            g.idims = L(3, K, K2, (int64_t)3);
            g.ivd = 2;
            g.offset = L(2, (int64_t)2, (int64_t)3);
            break;
        }
        case 3: { /* batching dimensions */
            int64_t B = rnd(1, 4);
            g.odims = L(3, B, N, D);
            g.sizes = L(3, (int64_t)1, (int64_t)1, D);
            g.collapsed = L(1, (int64_t)1);
            g.obatch = L(1, (int64_t)0);
            g.sbatch = L(1, (int64_t)0);
            g.smap = L(1, (int64_t)1);
            g.idims = L(2, B, K);
            g.ivd = 2;
            g.offset = L(1, (int64_t)2);
            break;
        }
        case 4:   /* the indexed dimension kept as an offset dimension of extent 1 */
            g.odims = L(2, N, D);
            g.sizes = L(2, (int64_t)1, D);
            g.smap = L(1, (int64_t)0);
            g.idims = L(2, K, (int64_t)1);
            g.ivd = 1;
            g.offset = L(2, (int64_t)1, (int64_t)2);
            break;
        default: { /* rank 1: windows of s consecutive elements */
            int64_t s = rnd(1, N);
            g.odims = L(1, N);
            g.sizes = L(1, s);
            g.smap = L(1, (int64_t)0);
            g.idims = L(2, K, (int64_t)1);
            g.ivd = 1;
            g.offset = L(1, (int64_t)1);
            break;
        }
        }
        run_gather(&g, t, it);
    }
}

static const plumb_dtype short_types[] = {PLUMB_F32, PLUMB_F64, PLUMB_F16, PLUMB_BF16, PLUMB_I1, PLUMB_I8,
                                          PLUMB_UI64, PLUMB_C64, PLUMB_C128, PLUMB_I16};
static const plumb_dtype short_index_types[] = {PLUMB_I32, PLUMB_I64, PLUMB_UI64, PLUMB_I8, PLUMB_UI8, PLUMB_I16};

/* Rows of at most 16 bytes take the short-row path (take of scalars): every
 * element size 1/2/4/8/16, windows of 1 and of 2 elements starting anywhere,
 * index types i8/ui8/i16/i32/i64/ui64 with starts out of range on both sides
 * (clamped; negative ones become huge unsigned values), rank-3 operands
 * indexed in one or three dimensions, the index vector dimension leading,
 * middle, trailing or implicit, several index batch dimensions, batching
 * dimensions: the reference's bits, on 1 and 2 threads (K past the grain). */
static void test_gather_short_path(void **state)
{
    (void)state;
    for (int rep = 0; rep < 42; rep++) {
        int64_t K = rep % 7 == 6 ? rnd(1, 3) : rnd(1, rep % 3 == 0 ? 40000 : 60);
        int64_t N = rnd(1, 60), M = rnd(1, 7), P = rnd(1, 5);
        plumb_dtype t = short_types[rep % NELEM(short_types)];
        plumb_dtype it = short_index_types[(rep / 2) % NELEM(short_index_types)];
        gspec g;
        memset(&g, 0, sizeof g);
        switch (rep % 6) {
        case 0:   /* take: rank-1 table, implicit index vector */
            g.odims = L(1, N);
            g.sizes = L(1, (int64_t)1);
            g.collapsed = L(1, (int64_t)0);
            g.smap = L(1, (int64_t)0);
            g.idims = L(2, K, (int64_t)2);
            g.ivd = 2;
            break;
        case 1:   /* rank 3, all three indexed, index vector leading */
            g.odims = L(3, M, N, P);
            g.sizes = L(3, (int64_t)1, (int64_t)1, (int64_t)1);
            g.collapsed = L(3, (int64_t)0, (int64_t)1, (int64_t)2);
            g.smap = L(3, (int64_t)2, (int64_t)0, (int64_t)1);
            g.idims = L(2, (int64_t)3, K);
            g.ivd = 0;
            break;
        case 2:   /* rank 3, index vector in the middle, two batch dims */
            g.odims = L(3, M, N, P);
            g.sizes = L(3, (int64_t)1, (int64_t)1, (int64_t)1);
            g.collapsed = L(3, (int64_t)0, (int64_t)1, (int64_t)2);
            g.smap = L(3, (int64_t)0, (int64_t)1, (int64_t)2);
            g.idims = L(3, (int64_t)3, (int64_t)3, K);
            g.ivd = 1;
            break;
        case 3:   /* rank 3, one indexed dimension, the others of extent 1 kept */
            g.odims = L(3, (int64_t)1, N, (int64_t)1);
            g.sizes = L(3, (int64_t)1, (int64_t)1, (int64_t)1);
            g.collapsed = L(1, (int64_t)1);
            g.smap = L(1, (int64_t)1);
            g.idims = L(2, K, (int64_t)1);
            g.ivd = 1;
            g.offset = L(2, (int64_t)1, (int64_t)2);
            break;
        case 4:   /* batching dimension, scalar rows */
            g.odims = L(2, M, N);
            g.sizes = L(2, (int64_t)1, (int64_t)1);
            g.collapsed = L(1, (int64_t)1);
            g.obatch = L(1, (int64_t)0);
            g.sbatch = L(1, (int64_t)1);
            g.smap = L(1, (int64_t)1);
            g.idims = L(3, K, M, (int64_t)1);
            g.ivd = 2;
            break;
        default:  /* windows of 2 consecutive elements at any start (8 or 16 bytes) */
            t = rep % 12 == 5 ? PLUMB_F32 : PLUMB_F64;
            g.odims = L(1, N + 1);
            g.sizes = L(1, (int64_t)2);
            g.smap = L(1, (int64_t)0);
            g.idims = L(1, K);
            g.ivd = 1;
            g.offset = L(1, (int64_t)1);
            break;
        }
        run_gather(&g, t, it);
    }
}

/* Layouts the row path must leave to the element path (offset dims leading,
 * a window that is not one run of the operand, a collapsed dimension whose
 * slice size is not 1 is rejected by the verifier, so not here): still the
 * reference's bits. */
static void test_gather_element_path(void **state)
{
    (void)state;
    for (int rep = 0; rep < 16; rep++) {
        int64_t K = rnd(0, 30), N = rnd(2, 20), D = rnd(2, 9);
        plumb_dtype t = pick(data_types, NELEM(data_types)), it = pick(index_types, NELEM(index_types));
        gspec g;
        memset(&g, 0, sizeof g);
        if (rep % 2 == 0) {   /* offset dimension before the batch dimension */
            g.odims = L(2, N, D);
            g.sizes = L(2, (int64_t)1, D);
            g.collapsed = L(1, (int64_t)0);
            g.smap = L(1, (int64_t)0);
            g.idims = L(2, K, (int64_t)1);
            g.ivd = 1;
            g.offset = L(1, (int64_t)0);
        } else {              /* a 2 x d block with d < D: two runs */
            int64_t d = rnd(1, D - 1);
            g.odims = L(2, N, D);
            g.sizes = L(2, (int64_t)2, d);
            g.smap = L(2, (int64_t)0, (int64_t)1);
            g.idims = L(2, K, (int64_t)2);
            g.ivd = 1;
            g.offset = L(2, (int64_t)1, (int64_t)2);
        }
        run_gather(&g, t, it);
    }
}

/* ---- scatter ------------------------------------------------------------------ */

typedef struct sspec {
    ilist xdims, udims, uwd, inserted, ibatch, sbatch, s2o, idims;
    int64_t ivd;
} sspec;

static const char *const body_replace = "      stablehlo.return %%b : %s\n";
static const char *const body_add = "      %%s = stablehlo.add %%a, %%b : %s\n      stablehlo.return %%s : %s\n";
static const char *const body_add_swapped = "      %%s = stablehlo.add %%b, %%a : %s\n      stablehlo.return %%s : %s\n";

static const char *const body_max = "      %%s = stablehlo.maximum %%a, %%b : %s\n      stablehlo.return %%s : %s\n";
static const char *const body_min_swapped = "      %%s = stablehlo.minimum %%b, %%a : %s\n      stablehlo.return %%s : %s\n";

/* About one float element in eight becomes a NaN (either sign, a payload),
 * a signed zero or an infinity: what max and min must order exactly. */
static void sprinkle_specials(plumb_tensor *x)
{
    if (x->dtype != PLUMB_F32 && x->dtype != PLUMB_F64) return;
    bool f32 = x->dtype == PLUMB_F32;
    uint64_t sign = f32 ? 1ull << 31 : 1ull << 63, inf = f32 ? 0x7f800000ull : 0x7ff0000000000000ull;
    uint64_t n = plumb_tensor_numel(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rt_rand();
        if (r % 8) continue;
        uint64_t bits;
        switch ((r >> 3) % 5) {
        case 0: bits = inf | ((r >> 8) & (f32 ? 0x3fffffull : 0xfffffffffffffull)) | 1; break;   /* NaN, quiet or not */
        case 1: bits = 0; break;
        case 2: bits = sign; break;
        case 3: bits = inf; break;
        default: bits = inf | sign; break;
        }
        if ((r >> 6) & 1) bits |= sign;
        plumb_store_bits(x->dtype, x->data, (size_t)i, bits);
    }
}

static void run_scatter(const sspec *s, plumb_dtype t, plumb_dtype it, const char *body)
{
    char xt[128], ity[128], ut[128], st[64], a1[96], a2[96], a3[96], a4[96], a5[96], b[256], src[4096];
    ilist none = {0};
    type_str(xt, sizeof xt, t, &s->xdims);
    type_str(ity, sizeof ity, it, &s->idims);
    type_str(ut, sizeof ut, t, &s->udims);
    type_str(st, sizeof st, t, &none);
    list_attr(a1, sizeof a1, "update_window_dims", &s->uwd);
    list_attr(a2, sizeof a2, "inserted_window_dims", &s->inserted);
    list_attr(a3, sizeof a3, "input_batching_dims", &s->ibatch);
    list_attr(a4, sizeof a4, "scatter_indices_batching_dims", &s->sbatch);
    list_attr(a5, sizeof a5, "scatter_dims_to_operand_dims", &s->s2o);
    snprintf(b, sizeof b, body, st, st);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%i: %s, %%u: %s) -> %s {\n"
             "  %%r = \"stablehlo.scatter\"(%%x, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<%s%s%s%s%sindex_vector_dim = %lld>}> ({\n"
             "    ^bb0(%%a: %s, %%b: %s):\n%s"
             "    }) : (%s, %s, %s) -> %s\n"
             "  func.return %%r : %s\n}\n",
             xt, ity, ut, xt, a1, a2, a3, a4, a5, (long long)s->ivd, st, st, b, xt, ity, ut, xt, xt);
    int64_t max = 0;
    for (uint32_t d = 0; d < s->xdims.n; d++) max = s->xdims.v[d] > max ? s->xdims.v[d] : max;
    plumb_tensor *in[3] = {tensor_of(t, &s->xdims), index_tensor(it, &s->idims, max), tensor_of(t, &s->udims)};
    if (body == body_replace) {
        /* replace only moves bits: any pattern; add computes, so NaNs
         * compare as a class (the reference's NaN rules are checked in
         * tests/runtime/test_kernels.c's scatter) */
        scramble(in[0]);
        scramble(in[2]);
        rt_check_exact(src, in, 3);
    } else if (body == body_max || body == body_min_swapped) {
        /* max and min only select or quiet: bit for bit, NaNs included */
        sprinkle_specials(in[0]);
        sprinkle_specials(in[2]);
        rt_check_exact(src, in, 3);
    } else {
        rt_check_exact_nan(src, in, 3);
    }
    for (int k = 0; k < 3; k++) plumb_tensor_free(in[k]);
}

static const plumb_dtype add_types[] = {PLUMB_F32, PLUMB_F64, PLUMB_I8, PLUMB_I16, PLUMB_I32, PLUMB_I64, PLUMB_UI8, PLUMB_UI32};

/* Row-path scatters: replace on every element type, add, maximum and
 * minimum (with NaNs and signed zeros) on the types they are applied
 * natively for, duplicate starts (applied in order), windows
 * leaving the input (skipped), index batch dims, batching dims, empty
 * updates: the reference's bits. */
static void test_scatter_row_path(void **state)
{
    (void)state;
    for (int rep = 0; rep < 48; rep++) {
        /* few distinct rows and many updates: duplicates in the same target */
        int64_t K = rep % 8 == 7 ? 0 : rnd(1, rep % 4 == 0 ? 2000 : 40);
        int64_t N = rnd(1, rep % 4 == 0 ? 12 : 30), D = rnd(1, rep % 4 == 0 ? 300 : 9);
        bool add = rep % 2 == 1;
        plumb_dtype t = add ? pick(add_types, NELEM(add_types)) : pick(data_types, NELEM(data_types));
        plumb_dtype it = pick(index_types, NELEM(index_types));
        const char *body = !add ? body_replace : rep % 4 == 1 ? body_add : body_add_swapped;
        /* every sixth case a max or min body instead */
        if (rep % 6 == 4) {
            body = rep % 12 == 4 ? body_max : body_min_swapped;
            t = (rep / 6) % 3 == 0 ? PLUMB_F32 : (rep / 6) % 3 == 1 ? PLUMB_F64 : pick(add_types, NELEM(add_types));
        }
        sspec s;
        memset(&s, 0, sizeof s);
        switch (rep % 5) {
        case 0: { /* rows of d <= D elements into N x D */
            int64_t d = rep % 3 ? D : rnd(1, D);
            s.xdims = L(2, N, D);
            s.udims = L(2, K, d);
            s.uwd = L(1, (int64_t)1);
            s.inserted = L(1, (int64_t)0);
            s.s2o = L(1, (int64_t)0);
            s.idims = L(2, K, (int64_t)1);
            s.ivd = 1;
            break;
        }
        case 1: { /* rank 3, two start indices, partial middle extent */
            int64_t B = rnd(1, 6), b = rnd(1, B);
            s.xdims = L(3, N, B, D);
            s.udims = L(3, K, b, D);
            s.uwd = L(2, (int64_t)1, (int64_t)2);
            s.inserted = L(1, (int64_t)0);
            s.s2o = L(2, (int64_t)0, (int64_t)1);
            s.idims = L(2, K, (int64_t)2);
            s.ivd = 1;
            break;
        }
        case 2: { /* batching dimensions, implicit index vector */
            int64_t B = rnd(1, 4);
            s.xdims = L(3, B, N, D);
            s.udims = L(3, B, K, D);
            s.uwd = L(1, (int64_t)2);
            s.inserted = L(1, (int64_t)1);
            s.ibatch = L(1, (int64_t)0);
            s.sbatch = L(1, (int64_t)0);
            s.s2o = L(1, (int64_t)1);
            s.idims = L(2, B, K);
            s.ivd = 2;
            break;
        }
        case 3: { /* two index batch dimensions, index vector leading */
            int64_t K2 = rnd(1, 3);
            s.xdims = L(2, N, D);
            s.udims = L(3, K, K2, D);
            s.uwd = L(1, (int64_t)2);
            s.inserted = L(1, (int64_t)0);
            s.s2o = L(1, (int64_t)0);
            s.idims = L(3, (int64_t)1, K, K2);
            s.ivd = 0;
            break;
        }
        default: { /* rank 1 input, windows of w consecutive elements */
            int64_t w = rnd(1, N);
            s.xdims = L(1, N);
            s.udims = L(2, K, w);
            s.uwd = L(1, (int64_t)1);
            s.s2o = L(1, (int64_t)0);
            s.idims = L(2, K, (int64_t)1);
            s.ivd = 1;
            break;
        }
        }
        run_scatter(&s, t, it, body);
    }
}

/* Layouts left to the element path (update window dimension leading; a
 * window of two partial runs), with replace, add, max and min bodies:
 * still the reference's bits. */
static void test_scatter_element_path(void **state)
{
    (void)state;
    for (int rep = 0; rep < 16; rep++) {
        int64_t K = rnd(0, 30), N = rnd(2, 12), D = rnd(2, 9);
        bool add = rep % 2 == 1;
        plumb_dtype t = add ? pick(add_types, NELEM(add_types)) : pick(data_types, NELEM(data_types));
        plumb_dtype it = pick(index_types, NELEM(index_types));
        sspec s;
        memset(&s, 0, sizeof s);
        if (rep % 4 < 2) {
            s.xdims = L(2, N, D);
            s.udims = L(2, D, K);
            s.uwd = L(1, (int64_t)0);
            s.inserted = L(1, (int64_t)0);
            s.s2o = L(1, (int64_t)0);
            s.idims = L(2, K, (int64_t)1);
            s.ivd = 1;
        } else {
            int64_t d = rnd(1, D - 1);
            s.xdims = L(2, N, D);
            s.udims = L(3, K, (int64_t)2, d);
            s.uwd = L(2, (int64_t)1, (int64_t)2);
            s.s2o = L(2, (int64_t)0, (int64_t)1);
            s.idims = L(2, K, (int64_t)2);
            s.ivd = 1;
        }
        run_scatter(&s, t, it, add ? (rep % 8 == 1 ? body_max : rep % 8 == 3 ? body_min_swapped : body_add) : body_replace);
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
        cmocka_unit_test(test_gather_row_path),
        cmocka_unit_test(test_gather_element_path),
        cmocka_unit_test(test_gather_short_path),
        cmocka_unit_test(test_scatter_row_path),
        cmocka_unit_test(test_scatter_element_path),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
