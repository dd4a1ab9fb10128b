/* Movement chains read through views (runtime/views.c plans them,
 * rt_view_run in runtime/k_movement.c writes them): random chains of
 * slice, pad (edge and interior), concatenate, transpose, reverse,
 * broadcast_in_dim and reshape from parameters of rank 1 to 4 (up to rank 9
 * after broadcasts and reshapes) with size-1 and zero-size
 * dimensions and every element size, the bench's concatenate -> slice ->
 * pad past the streaming threshold, and which chains are merged. Every
 * runtime run is compiled with fusion on (opt level 2, where views are
 * planned) at every ISA level the CPU has, on 1 and 2 threads, and
 * compared with the reference bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../runtime/rt_view.h"
#include "runtime/rt_test.h"

/* src on the reference and, at opt level 2, on the runtime: bit for bit. */
static void rv_check(const char *src, plumb_tensor *const *in, uint32_t n)
{
    ir_module *m = rt_parse(src);
    plumb_tensor *want[RT_MAX_OUT] = {NULL};
    uint32_t no = rt_ref(m, in, n, want);
    rt_check_runtime_at(m, src, 2, PLUMB_ISA_PORTABLE, in, n, want, no, false);
    rt_outs_free(want, no);
    ir_module_free(m);
}

/* Merged groups and their op counts for src's entry (fusion at level 2,
 * then the view planning), without passes. */
static uint32_t rv_plan(const char *src, uint32_t *ops_of_view, uint32_t cap)
{
    ir_module *m = rt_parse(src);
    plumb_arena *a = plumb_arena_new(0);
    rt_group *g = NULL;
    uint32_t ng = 0;
    ir_func *f = rt_fuse_main(m, src, a, &g, &ng);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    rt_view **v = NULL;
    assert_true(rt_view_plan(a, f, 2, g, ng, &v, &d));
    uint32_t nv = 0;
    for (uint32_t i = 0; v && i < ng; i++)
        if (v[i]) {
            if (nv < cap) ops_of_view[nv] = g[i].n_ops;
            nv++;
        }
    plumb_arena_free(a);
    ir_module_free(m);
    return nv;
}

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(rt_rand() % (uint64_t)(hi - lo + 1)); }

static void ints(char *buf, size_t cap, uint32_t n, const int64_t *v)
{
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < n; i++) o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)v[i]);
    snprintf(buf + o, cap - o, "]");
}

/* A random chain: program text in src, parameters in in[] (*n). */
typedef struct chain {
    char src[16384];
    size_t len;
    char params[2048];
    size_t plen;
    plumb_tensor *in[16];
    uint32_t n;
    plumb_dtype t;
    uint32_t rank;
    int64_t dims[PLUMB_MAX_RANK];
    int cur;                     /* %v<cur> is the chain's value */
    int mid;                     /* a value returned besides the last, or -1 */
} chain;

static void emit(chain *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(chain *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    c->len += (size_t)vsnprintf(c->src + c->len, sizeof c->src - c->len, fmt, ap);
    va_end(ap);
}

static void add_param(chain *c, uint32_t rank, const int64_t *dims)
{
    char ty[160];
    rt_ty(ty, sizeof ty, c->t, rank, dims);
    c->plen += (size_t)snprintf(c->params + c->plen, sizeof c->params - c->plen, "%s%%p%u: %s", c->n ? ", " : "",
                                c->n, ty);
    c->in[c->n++] = rt_rand_tensor(c->t, rank, dims, false);
}

/* One random movement op applied to the chain's value. */
static void step(chain *c, int v)
{
    char ta[160], tr[160], l[96], h[96], it[96];
    uint32_t r = c->rank;
    int64_t nd[PLUMB_MAX_RANK];
    rt_ty(ta, sizeof ta, c->t, r, c->dims);
    int kind = (int)rnd(0, 7);
    if (kind == 6 && r >= PLUMB_MAX_RANK) kind = 0;
    switch (kind) {
    case 0: {   /* slice */
        int64_t st[PLUMB_MAX_RANK], li[PLUMB_MAX_RANK], sd[PLUMB_MAX_RANK];
        for (uint32_t d = 0; d < r; d++) {
            st[d] = rnd(0, c->dims[d]);
            li[d] = rnd(st[d], c->dims[d]);
            sd[d] = rnd(1, 3);
            nd[d] = li[d] > st[d] ? (li[d] - st[d] + sd[d] - 1) / sd[d] : 0;
        }
        rt_ty(tr, sizeof tr, c->t, r, nd);
        ints(l, sizeof l, r, st);
        ints(h, sizeof h, r, li);
        ints(it, sizeof it, r, sd);
        /* the generic form: array<i64: ...> lists without brackets */
        char sa[96], la[96], da[96];
        snprintf(sa, sizeof sa, "%.*s", (int)strlen(l) - 2, l + 1);
        snprintf(la, sizeof la, "%.*s", (int)strlen(h) - 2, h + 1);
        snprintf(da, sizeof da, "%.*s", (int)strlen(it) - 2, it + 1);
        emit(c,
             "  %%v%d = \"stablehlo.slice\"(%%v%d) <{start_indices = array<i64%s%s>, limit_indices = array<i64%s%s>, "
             "strides = array<i64%s%s>}> : (%s) -> %s\n",
             v, c->cur, r ? ": " : "", sa, r ? ": " : "", la, r ? ": " : "", da, ta, tr);
        break;
    }
    case 1: {   /* pad, sometimes interior */
        int64_t lo[PLUMB_MAX_RANK], hi[PLUMB_MAX_RANK], in[PLUMB_MAX_RANK];
        bool inter = rnd(0, 4) == 0;
        for (uint32_t d = 0; d < r; d++) {
            in[d] = inter ? rnd(0, 1) : 0;
            int64_t ext = c->dims[d] + (c->dims[d] ? (c->dims[d] - 1) * in[d] : 0);
            lo[d] = rnd(-2, 3);
            hi[d] = rnd(-2, 3);
            if (lo[d] + hi[d] + ext < 0) lo[d] = hi[d] = 0;
            nd[d] = lo[d] + hi[d] + ext;
        }
        char ts[64];
        rt_ty(tr, sizeof tr, c->t, r, nd);
        rt_ty(ts, sizeof ts, c->t, 0, NULL);
        ints(l, sizeof l, r, lo);
        ints(h, sizeof h, r, hi);
        ints(it, sizeof it, r, in);
        emit(c, "  %%v%d = stablehlo.pad %%v%d, %%pv, low = %s, high = %s, interior = %s : (%s, %s) -> %s\n", v,
             c->cur, l, h, it, ta, ts, tr);
        break;
    }
    case 2: {   /* concatenate with a new parameter */
        uint32_t d = (uint32_t)rnd(0, r - 1);
        int64_t pd[PLUMB_MAX_RANK];
        for (uint32_t k = 0; k < r; k++) nd[k] = pd[k] = c->dims[k];
        pd[d] = rnd(0, 3);
        nd[d] += pd[d];
        uint32_t pi = c->n;
        add_param(c, r, pd);
        char tp[160];
        rt_ty(tp, sizeof tp, c->t, r, pd);
        rt_ty(tr, sizeof tr, c->t, r, nd);
        if (rnd(0, 1))
            emit(c, "  %%v%d = stablehlo.concatenate %%v%d, %%p%u, dim = %u : (%s, %s) -> %s\n", v, c->cur, pi, d, ta,
                 tp, tr);
        else
            emit(c, "  %%v%d = stablehlo.concatenate %%p%u, %%v%d, dim = %u : (%s, %s) -> %s\n", v, pi, c->cur, d, tp,
                 ta, tr);
        break;
    }
    case 3: {   /* transpose */
        int64_t perm[PLUMB_MAX_RANK];
        for (uint32_t k = 0; k < r; k++) perm[k] = k;
        for (uint32_t k = r; k > 1; k--) {
            uint32_t j = (uint32_t)rnd(0, k - 1);
            int64_t t = perm[k - 1];
            perm[k - 1] = perm[j];
            perm[j] = t;
        }
        for (uint32_t k = 0; k < r; k++) nd[k] = c->dims[perm[k]];
        rt_ty(tr, sizeof tr, c->t, r, nd);
        ints(l, sizeof l, r, perm);
        emit(c, "  %%v%d = stablehlo.transpose %%v%d, dims = %s : (%s) -> %s\n", v, c->cur, l, ta, tr);
        break;
    }
    case 4: {   /* reverse */
        int64_t ds[PLUMB_MAX_RANK];
        uint32_t n = 0;
        for (uint32_t k = 0; k < r; k++)
            if (rnd(0, 1)) ds[n++] = k;
        for (uint32_t k = 0; k < r; k++) nd[k] = c->dims[k];
        ints(l, sizeof l, n, ds);
        emit(c, "  %%v%d = stablehlo.reverse %%v%d, dims = %s : %s\n", v, c->cur, l, ta);
        break;
    }
    case 5: {   /* reshape: merge two neighbours, or split one */
        uint32_t nr = r;
        for (uint32_t k = 0; k < r; k++) nd[k] = c->dims[k];
        uint32_t d = (uint32_t)rnd(0, r - 1);
        if (r >= 2 && d + 1 < r && rnd(0, 1)) {
            nd[d] = c->dims[d] * c->dims[d + 1];
            for (uint32_t k = d + 1; k + 1 < r; k++) nd[k] = c->dims[k + 1];
            nr = r - 1;
        } else if (r < PLUMB_MAX_RANK && c->dims[d] % 2 == 0 && c->dims[d] > 0) {
            for (uint32_t k = r; k > d + 1; k--) nd[k] = c->dims[k - 1];
            nd[d] = 2;
            nd[d + 1] = c->dims[d] / 2;
            nr = r + 1;
        }
        rt_ty(tr, sizeof tr, c->t, nr, nd);
        emit(c, "  %%v%d = stablehlo.reshape %%v%d : (%s) -> %s\n", v, c->cur, ta, tr);
        r = nr;
        break;
    }
    default: {  /* broadcast_in_dim: a new dimension, size-1 dims expanded */
        uint32_t at = (uint32_t)rnd(0, r);
        int64_t map[PLUMB_MAX_RANK];
        for (uint32_t k = 0, o = 0; k <= r; k++) {
            if (k == at) {
                nd[k] = rnd(1, 3);
                continue;
            }
            map[o] = k;
            nd[k] = c->dims[o] == 1 ? rnd(1, 3) : c->dims[o];
            o++;
        }
        rt_ty(tr, sizeof tr, c->t, r + 1, nd);
        ints(l, sizeof l, r, map);
        emit(c, "  %%v%d = stablehlo.broadcast_in_dim %%v%d, dims = %s : (%s) -> %s\n", v, c->cur, l, ta, tr);
        r = r + 1;
        break;
    }
    }
    c->rank = r;
    memcpy(c->dims, nd, sizeof nd);
    c->cur = v;
}

static const plumb_dtype ctypes[] = {PLUMB_I8, PLUMB_BF16, PLUMB_F32, PLUMB_F64, PLUMB_I1, PLUMB_UI16};

/* Random chains of 1 to 5 movement ops from a parameter of rank 1 to 4
 * (dims 0 to 5, mostly nonzero), sometimes returning a middle value as
 * well (then it is not read through a view). */
static void test_views_random(void **state)
{
    (void)state;
    int merged = 0;
    for (int iter = 0; iter < 300; iter++) {
        chain *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->t = ctypes[iter % (int)(sizeof ctypes / sizeof *ctypes)];
        c->rank = (uint32_t)rnd(1, 4);
        for (uint32_t d = 0; d < c->rank; d++) c->dims[d] = rnd(0, 9) == 0 ? 0 : rnd(1, 5);
        add_param(c, c->rank, c->dims);
        c->in[c->n++] = rt_scalar_bits(c->t, c->t == PLUMB_I1 ? 1 : rt_rand());
        c->cur = -1;
        int nsteps = (int)rnd(1, 5);
        c->mid = nsteps > 1 && rnd(0, 3) == 0 ? (int)rnd(0, nsteps - 2) : -1;
        /* %v-1 is %p0: rename by emitting an identity reshape first */
        char t0[160];
        rt_ty(t0, sizeof t0, c->t, c->rank, c->dims);
        emit(c, "  %%v0 = stablehlo.reshape %%p0 : (%s) -> %s\n", t0, t0);
        c->cur = 0;
        char mty[160] = "";
        for (int s = 0; s < nsteps; s++) {
            step(c, s + 1);
            if (s == c->mid) rt_ty(mty, sizeof mty, c->t, c->rank, c->dims);
        }
        char rty[160], ts[64], full[20000];
        rt_ty(rty, sizeof rty, c->t, c->rank, c->dims);
        rt_ty(ts, sizeof ts, c->t, 0, NULL);
        /* the padding value is the second parameter */
        plumb_tensor *ins[16];
        ins[0] = c->in[0];
        ins[1] = c->in[1];
        for (uint32_t i = 2; i < c->n; i++) ins[i] = c->in[i];
        char params[2300];
        /* %pv after %p0: rebuild the parameter list with it second */
        const char *rest = strchr(c->params, ',');
        snprintf(params, sizeof params, "%.*s, %%pv: %s%s", (int)(rest ? rest - c->params : (long)strlen(c->params)),
                 c->params, ts, rest ? rest : "");
        if (c->mid >= 0)
            snprintf(full, sizeof full, "func.func @main(%s) -> (%s, %s) {\n%s  func.return %%v%d, %%v%d : %s, %s\n}\n",
                     params, rty, mty, c->src, c->cur, c->mid + 1, rty, mty);
        else
            snprintf(full, sizeof full, "func.func @main(%s) -> %s {\n%s  func.return %%v%d : %s\n}\n", params, rty,
                     c->src, c->cur, rty);
        uint32_t ops[2];
        merged += rv_plan(full, ops, 2) > 0;
        rv_check(full, ins, c->n);
        for (uint32_t i = 0; i < c->n; i++) plumb_tensor_free(c->in[i]);
        free(c);
    }
    /* most chains of two or more ops merge (the runs above went through views) */
    fprintf(stderr, "%d of 300 random chains planned as views\n", merged);
    assert_true(merged >= 100);
}

static const char csp_small[] =
    "func.func @main(%x: tensor<6x9xf32>, %y: tensor<5x9xf32>) -> tensor<11x9xf32> {\n"
    "  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<6x9xf32>, tensor<5x9xf32>) -> tensor<11x9xf32>\n"
    "  %s = stablehlo.slice %c [1:10, 1:8] : (tensor<11x9xf32>) -> tensor<9x7xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %p = stablehlo.pad %s, %z, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<9x7xf32>, tensor<f32>) -> tensor<11x9xf32>\n"
    "  func.return %p : tensor<11x9xf32>\n}\n";

/* concatenate -> slice -> pad is one merged step of three ops; with the
 * slice also returned, the slice is materialized and only pad's step is
 * left, reading it (no view). */
static void test_views_plan(void **state)
{
    (void)state;
    uint32_t ops[4];
    assert_int_equal(rv_plan(csp_small, ops, 4), 1);
    assert_int_equal(ops[0], 3);
    static const char shared[] =
        "func.func @main(%x: tensor<6x9xf32>, %y: tensor<5x9xf32>) -> (tensor<11x9xf32>, tensor<9x7xf32>) {\n"
        "  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<6x9xf32>, tensor<5x9xf32>) -> tensor<11x9xf32>\n"
        "  %s = stablehlo.slice %c [1:10, 1:8] : (tensor<11x9xf32>) -> tensor<9x7xf32>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %p = stablehlo.pad %s, %z, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<9x7xf32>, tensor<f32>) -> tensor<11x9xf32>\n"
        "  func.return %p, %s : tensor<11x9xf32>, tensor<9x7xf32>\n}\n";
    assert_int_equal(rv_plan(shared, ops, 4), 1);
    assert_int_equal(ops[0], 2);   /* concatenate -> slice; pad reads the slice */
    static const char interior[] =
        "func.func @main(%x: tensor<6x9xf32>) -> tensor<7x15xf32> {\n"
        "  %s = stablehlo.slice %x [1:5, 1:8] : (tensor<6x9xf32>) -> tensor<4x7xf32>\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %p = stablehlo.pad %s, %z, low = [0, 1], high = [0, 1], interior = [1, 1] : (tensor<4x7xf32>, tensor<f32>) -> tensor<7x15xf32>\n"
        "  func.return %p : tensor<7x15xf32>\n}\n";
    assert_int_equal(rv_plan(interior, ops, 4), 0);
}

/* The bench's pipeline on rows that start off a line, and past the 8 MiB
 * mark where rows go out with streaming stores; and a transposed source
 * (pieces copied through the strided engine) padded. */
static void test_views_large(void **state)
{
    (void)state;
    int64_t dx[2] = {6, 9}, dy[2] = {5, 9};
    plumb_tensor *in[2] = {rt_rand_tensor(PLUMB_F32, 2, dx, true), rt_rand_tensor(PLUMB_F32, 2, dy, true)};
    rv_check(csp_small, in, 2);
    plumb_tensor_free(in[0]);
    plumb_tensor_free(in[1]);
    static const char big[] =
        "func.func @main(%x: tensor<700x2001xf32>, %y: tensor<701x2001xf32>) -> tensor<1401x2001xf32> {\n"
        "  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<700x2001xf32>, tensor<701x2001xf32>) -> tensor<1401x2001xf32>\n"
        "  %s = stablehlo.slice %c [1:1400, 1:2000] : (tensor<1401x2001xf32>) -> tensor<1399x1999xf32>\n"
        "  %z = stablehlo.constant dense<0x7FC00001> : tensor<f32>\n"
        "  %p = stablehlo.pad %s, %z, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<1399x1999xf32>, tensor<f32>) -> tensor<1401x2001xf32>\n"
        "  func.return %p : tensor<1401x2001xf32>\n}\n";
    int64_t bx[2] = {700, 2001}, by[2] = {701, 2001};
    plumb_tensor *bin[2] = {rt_rand_tensor(PLUMB_F32, 2, bx, true), rt_rand_tensor(PLUMB_F32, 2, by, true)};
    rv_check(big, bin, 2);
    plumb_tensor_free(bin[0]);
    plumb_tensor_free(bin[1]);
    static const char tr[] =
        "func.func @main(%x: tensor<300x130xf64>) -> tensor<134x301xf64> {\n"
        "  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<300x130xf64>) -> tensor<130x300xf64>\n"
        "  %r = stablehlo.reverse %t, dims = [1] : tensor<130x300xf64>\n"
        "  %z = stablehlo.constant dense<-0.0> : tensor<f64>\n"
        "  %p = stablehlo.pad %r, %z, low = [2, -1], high = [2, 2], interior = [0, 0] : (tensor<130x300xf64>, tensor<f64>) -> tensor<134x301xf64>\n"
        "  func.return %p : tensor<134x301xf64>\n}\n";
    int64_t tx[2] = {300, 130};
    plumb_tensor *tin = rt_rand_tensor(PLUMB_F64, 2, tx, true);
    rv_check(tr, &tin, 1);
    plumb_tensor_free(tin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_plan),
        cmocka_unit_test(test_views_large),
        cmocka_unit_test(test_views_random),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_free_all();
    return rc;
}
