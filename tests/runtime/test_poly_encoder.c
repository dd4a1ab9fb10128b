/* The polymorphic encoder scenario of issue 13 on the compiled runtime: a
 * transformer-encoder block whose sequence length is `?` (bound 64),
 * compiled once and run at 20 lengths. Each run must equal, bit for bit,
 * a static compile of the same program at that length, and agree with
 * the reference; the runtime's counters must show one compile; a length
 * above the bound must fail with the bound error without compiling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/poly_encoder.h"
#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/runtime.h"
#include "../../runtime/rt_passes.h"

/* 20 lengths within 1..64: both ends, powers of two and their
 * neighbours (tile and row-block edges), odd sizes. */
static const int64_t lengths[20] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32, 33, 40, 47, 55, 63, 64};

static ir_module *parse_verified(const char *text)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_module *m = ir_parse(text, strlen(text), "encoder.mlir", NULL, &d);
    if (!m)
        plumb_diag_print(&d, stderr);
    assert_non_null(m);
    bool ok = ir_verify(m, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    return m;
}

static ir_module *encoder_eps(int64_t n, const char *eps)
{
    char *text = poly_encoder_text_eps(n, eps);
    assert_non_null(text);
    ir_module *m = parse_verified(text);
    free(text);
    return m;
}

static ir_module *encoder(int64_t n) { return encoder_eps(n, "9.99999974E-6"); }

/* The inputs at length n (ids below the vocabulary, small weights). */
static void make_inputs(int64_t n, uint32_t seed, plumb_tensor **in)
{
    const int64_t D = POLY_ENC_D, F = POLY_ENC_F, V = POLY_ENC_V;
    int64_t dims[POLY_ENC_PARAMS][2] = {{n, 0}, {V, D}, {D, 0}, {D, 0}, {D, D}, {D, D}, {D, D}, {D, F}, {F, D}};
    uint32_t rank[POLY_ENC_PARAMS] = {1, 2, 1, 1, 2, 2, 2, 2, 2};
    float scale[POLY_ENC_PARAMS] = {0, 1.0f, 1.0f, 0.5f, 0.18f, 0.18f, 0.18f, 0.18f, 0.125f};
    uint32_t s = seed * 2654435761u + 17;
    for (int i = 0; i < POLY_ENC_PARAMS; i++) {
        plumb_diag d;
        memset(&d, 0, sizeof d);
        in[i] = plumb_tensor_new(i == 0 ? PLUMB_I32 : PLUMB_F32, rank[i], dims[i], 0, &d);
        assert_non_null(in[i]);
        size_t ne = (size_t)plumb_tensor_numel(in[i]);
        if (i == 0) {
            int32_t *ids = in[i]->data;
            for (size_t k = 0; k < ne; k++)
                ids[k] = (int32_t)(poly_enc_rand(&s) % (uint32_t)V);
        } else {
            poly_enc_fill(in[i]->data, ne, scale[i], &s);
        }
    }
}

static void free_all(plumb_tensor **t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        plumb_tensor_free(t[i]);
        t[i] = NULL;
    }
}

static plumb_runtime *new_runtime(void)
{
    plumb_runtime_options o;
    plumb_runtime_options_init(&o);
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_runtime *rt = plumb_runtime_create(&o, &d);
    if (!rt)
        plumb_diag_print(&d, stderr);
    assert_non_null(rt);
    return rt;
}

static void expect_bits_equal(const plumb_tensor *a, const plumb_tensor *b, int64_t n, const char *what)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->rank, b->rank);
    for (uint32_t i = 0; i < a->rank; i++)
        assert_int_equal(a->dims[i], b->dims[i]);
    assert_int_equal(a->nbytes, b->nbytes);
    if (a->nbytes && memcmp(a->data, b->data, a->nbytes) != 0) {
        const uint32_t *x = a->data, *y = b->data;
        for (size_t k = 0; k < a->nbytes / 4; k++)
            if (x[k] != y[k]) {
                fprintf(stderr, "length %lld: %s: element %zu: 0x%08x vs 0x%08x\n", (long long)n, what, k, x[k], y[k]);
                break;
            }
        fail();
    }
}

/* Every element within 1e-4 of the largest magnitude of the reference's
 * result. The reference rounds each dot product and sum once from its
 * exact value and its exp/rsqrt correctly; the runtime accumulates in f32
 * and its exp/rsqrt are within 1 ULP, so the two differ by a few f32
 * roundings per op (about 1e-6 relative here); a wrong extent, stride or
 * stale buffer row differs by the size of the values themselves. */
static void expect_close_to_ref(const plumb_tensor *got, const plumb_tensor *want, int64_t n)
{
    assert_int_equal(got->rank, want->rank);
    for (uint32_t i = 0; i < got->rank; i++)
        assert_int_equal(got->dims[i], want->dims[i]);
    const float *g = got->data, *w = want->data;
    size_t ne = (size_t)plumb_tensor_numel(want);
    double scale = 0;
    for (size_t k = 0; k < ne; k++)
        scale = fmax(scale, fabs((double)w[k]));
    for (size_t k = 0; k < ne; k++) {
        double err = fabs((double)g[k] - (double)w[k]);
        if (!(err <= 1e-4 * scale)) {
            fprintf(stderr, "length %lld: element %zu: runtime %.9g, reference %.9g\n", (long long)n, k, g[k], w[k]);
            fail();
        }
    }
}

/* One compile for 20 lengths; each run bit-identical to the static compile
 * of its length and close to the reference; both run calls (fresh results
 * and caller-owned results) give the same bits. */
static void test_encoder_compiles_once(void **state)
{
    (void)state;
    ir_module *poly = encoder(-1);
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_executable *ex = plumb_runtime_compile(rt, poly, NULL, &d);
    if (!ex)
        plumb_diag_print(&d, stderr);
    assert_non_null(ex);
    for (int li = 0; li < 20; li++) {
        int64_t n = lengths[li];
        plumb_tensor *in[POLY_ENC_PARAMS], *out[1] = {NULL}, *st_out[1] = {NULL};
        make_inputs(n, (uint32_t)li + 1, in);
        /* the same module through the cache: a hit, never a compile */
        plumb_executable *again = plumb_runtime_compile(rt, poly, NULL, &d);
        assert_ptr_equal(again, ex);
        bool ok = plumb_executable_run(ex, in, POLY_ENC_PARAMS, out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        /* into a caller-owned result of this length */
        int64_t od[2] = {n, POLY_ENC_D};
        plumb_tensor *into = plumb_tensor_new(PLUMB_F32, 2, od, 0, &d);
        assert_non_null(into);
        ok = plumb_executable_run_into(ex, in, POLY_ENC_PARAMS, &into, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        expect_bits_equal(out[0], into, n, "run vs run_into");
        /* a static compile of this length, on a runtime of its own */
        ir_module *stat = encoder(n);
        plumb_runtime *srt = new_runtime();
        ok = plumb_runtime_run(srt, stat, NULL, in, POLY_ENC_PARAMS, st_out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        expect_bits_equal(out[0], st_out[0], n, "polymorphic vs static compile");
        plumb_runtime_destroy(srt);
        ir_module_free(stat);
        /* the reference on the polymorphic program */
        plumb_ref_result r;
        memset(&r, 0, sizeof r);
        ok = plumb_ref_run(poly, NULL, in, POLY_ENC_PARAMS, NULL, &r, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        assert_int_equal(r.n_outputs, 1);
        expect_close_to_ref(out[0], r.outputs[0], n);
        plumb_ref_result_free(&r);
        plumb_tensor_free(into);
        free_all(out, 1);
        free_all(st_out, 1);
        free_all(in, POLY_ENC_PARAMS);
    }
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.recompiles, 0);
    assert_int_equal(st.cache_hits, 20);
    assert_int_equal(st.runs, 40);
    assert_int_equal(st.programs, 1);
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

/* Inputs on which every op of the encoder is exact, so any correct
 * executor gives the reference's bits whatever its order of accumulation
 * or its (at most 1-ULP) exp and rsqrt: embedding row r is m_r + a_r * s_i
 * with s_i = +1, -1 alternating over the 32 columns and a_r a power of two,
 * so its mean, deviations and variance a_r^2 are exact and (epsilon 0) its
 * rsqrt is exactly 1/a_r; gamma, beta and the MLP weights are small
 * multiples of 1/8 and 1/16, so every dot product sums exact values; wq is
 * 0, so every score is 0, exp(0) = 1 and each probability is 1/n, one
 * correctly rounded division; wv is 0, so the attention adds +0. */
static void make_exact_inputs(int64_t n, uint32_t seed, plumb_tensor **in)
{
    make_inputs(n, seed, in);
    const int64_t D = POLY_ENC_D, F = POLY_ENC_F, V = POLY_ENC_V;
    uint32_t s = seed * 747796405u + 1;
    float *emb = in[1]->data;
    for (int64_t r = 0; r < V; r++) {
        float m = (float)((int)(poly_enc_rand(&s) % 17u) - 8) / 8.0f;
        float a = (float)(1u << (poly_enc_rand(&s) % 3u)) / 2.0f;   /* 1/2, 1, 2 */
        for (int64_t i = 0; i < D; i++)
            emb[r * D + i] = m + (i % 2 ? -a : a);
    }
    float *g = in[2]->data, *b = in[3]->data;
    for (int64_t i = 0; i < D; i++) {
        g[i] = (float)((int)(poly_enc_rand(&s) % 9u) - 4) / 8.0f;
        b[i] = (float)((int)(poly_enc_rand(&s) % 9u) - 4) / 8.0f;
    }
    memset(in[4]->data, 0, in[4]->nbytes);   /* wq */
    memset(in[6]->data, 0, in[6]->nbytes);   /* wv */
    float *wk = in[5]->data, *w1 = in[7]->data, *w2 = in[8]->data;
    for (int64_t i = 0; i < D * D; i++)
        wk[i] = (float)((int)(poly_enc_rand(&s) % 9u) - 4) / 16.0f;
    for (int64_t i = 0; i < D * F; i++) {
        w1[i] = (float)((int)(poly_enc_rand(&s) % 9u) - 4) / 16.0f;
        w2[i] = (float)((int)(poly_enc_rand(&s) % 9u) - 4) / 16.0f;
    }
}

/* On exact inputs (above) the polymorphic executable, compiled once, gives
 * the reference's bits at all 20 lengths, and a static compile's. */
static void test_encoder_bitwise_with_reference(void **state)
{
    (void)state;
    ir_module *poly = encoder_eps(-1, "0.000000e+00");
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    for (int li = 0; li < 20; li++) {
        int64_t n = lengths[li];
        plumb_tensor *in[POLY_ENC_PARAMS], *out[1] = {NULL}, *st_out[1] = {NULL};
        make_exact_inputs(n, (uint32_t)li + 40, in);
        bool ok = plumb_runtime_run(rt, poly, NULL, in, POLY_ENC_PARAMS, out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        plumb_ref_result r;
        memset(&r, 0, sizeof r);
        ok = plumb_ref_run(poly, NULL, in, POLY_ENC_PARAMS, NULL, &r, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        expect_bits_equal(out[0], r.outputs[0], n, "polymorphic runtime vs reference");
        plumb_ref_result_free(&r);
        ir_module *stat = encoder_eps(n, "0.000000e+00");
        plumb_runtime *srt = new_runtime();
        ok = plumb_runtime_run(srt, stat, NULL, in, POLY_ENC_PARAMS, st_out, 1, NULL, &d);
        assert_true(ok);
        expect_bits_equal(out[0], st_out[0], n, "polymorphic vs static compile");
        plumb_runtime_destroy(srt);
        ir_module_free(stat);
        free_all(out, 1);
        free_all(st_out, 1);
        free_all(in, POLY_ENC_PARAMS);
    }
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

static long n_allocs;

static void *counting(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    n_allocs++;
    return realloc(ptr, nsize);
}

/* Buffers are planned at the bound: after a run at the bound, a second
 * run at any shorter length allocates nothing at all — the planned
 * buffers and the kept scratch serve it, and the shapes the first run at
 * that length derived are reused (docs/runtime.md). (A run at a new length
 * lets ir_shape_infer allocate and free its own scratch.) */
static void test_encoder_no_allocation_below_bound(void **state)
{
    (void)state;
    ir_module *poly = encoder(-1);
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_executable *ex = plumb_runtime_compile(rt, poly, NULL, &d);
    assert_non_null(ex);
    plumb_tensor *in[POLY_ENC_BOUND][POLY_ENC_PARAMS], *res[POLY_ENC_BOUND];
    for (int64_t n = 1; n <= POLY_ENC_BOUND; n++) {
        make_inputs(n, (uint32_t)n, in[n - 1]);
        int64_t od[2] = {n, POLY_ENC_D};
        res[n - 1] = plumb_tensor_new(PLUMB_F32, 2, od, 0, &d);
        assert_non_null(res[n - 1]);
    }
    assert_true(plumb_executable_run_into(ex, in[POLY_ENC_BOUND - 1], POLY_ENC_PARAMS, &res[POLY_ENC_BOUND - 1], 1,
                                          NULL, &d));
    long during = 0;
    bool ok = true;
    plumb_set_allocator(counting, NULL);
    for (int64_t n = 1; n < POLY_ENC_BOUND && ok; n++) {
        ok = plumb_executable_run_into(ex, in[n - 1], POLY_ENC_PARAMS, &res[n - 1], 1, NULL, &d);
        n_allocs = 0;
        ok = ok && plumb_executable_run_into(ex, in[n - 1], POLY_ENC_PARAMS, &res[n - 1], 1, NULL, &d);
        during += n_allocs;
    }
    plumb_set_allocator(NULL, NULL);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(during, 0);
    for (int64_t n = 1; n <= POLY_ENC_BOUND; n++) {
        free_all(in[n - 1], POLY_ENC_PARAMS);
        plumb_tensor_free(res[n - 1]);
    }
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

/* The fused groups of @main of m after the passes, as the compile makes
 * them: per fused group its ops' opcodes (terminated by PLUMB_OP_COUNT),
 * into codes[]; returns the number of fused groups, *n_dyn those with `?`
 * dimensions, and their one-pass row steps. */
static uint32_t fused_groups(ir_module *m, plumb_opcode *codes, size_t cap, uint32_t *n_dyn, uint32_t *passes)
{
    plumb_diag d;
    memset(&d, 0, sizeof d);
    ir_func *f = ir_module_find_func(m, "main");
    assert_non_null(f);
    assert_true(rt_run_passes(m, f, 2, 0, &d));
    plumb_arena *a = plumb_arena_new(0);
    assert_non_null(a);
    rt_group *g = NULL;
    uint32_t n = 0, fused = 0;
    bool ok = rt_fuse(a, f, 2, &g, &n, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    size_t k = 0;
    *n_dyn = *passes = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!g[i].fused)
            continue;
        fused++;
        *n_dyn += rt_fused_dynamic(g[i].fused);
        uint32_t sq, ex;
        rt_fused_row_passes(g[i].fused, &sq, &ex);
        *passes += sq + ex;
        for (uint32_t j = 0; j < g[i].n_ops; j++) {
            assert_true(k + 1 < cap);
            plumb_opcode c = g[i].ops[j]->code;
            codes[k++] = c == PLUMB_OP_DYNAMIC_BROADCAST_IN_DIM ? PLUMB_OP_BROADCAST_IN_DIM : c;
        }
        codes[k++] = PLUMB_OP_COUNT;
    }
    plumb_arena_free(a);
    return fused;
}

/* The polymorphic encoder fuses as a static one does: the same groups of
 * the same ops (dynamic_broadcast_in_dim standing for broadcast_in_dim):
 * layer_norm and softmax as row groups with their one-pass variance and
 * exp-sum steps, and the relu's broadcast-and-maximum loop group; every
 * one of them has `?` dimensions. */
static void test_encoder_fuses_like_static(void **state)
{
    (void)state;
    ir_module *poly = encoder(-1), *stat = encoder(17);
    plumb_opcode pc[256], sc[256];
    uint32_t pdyn, sdyn, ppass, spass;
    uint32_t np = fused_groups(poly, pc, 256, &pdyn, &ppass);
    uint32_t ns = fused_groups(stat, sc, 256, &sdyn, &spass);
    assert_int_equal(np, 3);
    assert_int_equal(np, ns);
    assert_int_equal(pdyn, 3);
    assert_int_equal(sdyn, 0);
    assert_int_equal(ppass, 2);
    assert_int_equal(spass, 2);
    size_t k = 0;
    for (uint32_t gi = 0; gi < np; gi++)
        do {
            assert_int_equal(pc[k], sc[k]);
        } while (pc[k++] != PLUMB_OP_COUNT);
    ir_module_free(poly);
    ir_module_free(stat);
}

/* An empty sequence (length 0, within the bound) runs on the same compile
 * as length 5: empty rows, an empty score matrix, a 0x32 result, as the
 * reference gives. */
static void test_encoder_empty_sequence(void **state)
{
    (void)state;
    ir_module *poly = encoder_eps(-1, "0.000000e+00");   /* exact inputs need epsilon 0 */
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    for (int64_t n = 5; n >= 0; n -= 5) {
        plumb_tensor *in[POLY_ENC_PARAMS], *out[1] = {NULL};
        make_exact_inputs(n, 9, in);
        bool ok = plumb_runtime_run(rt, poly, NULL, in, POLY_ENC_PARAMS, out, 1, NULL, &d);
        if (!ok)
            plumb_diag_print(&d, stderr);
        assert_true(ok);
        plumb_ref_result r;
        memset(&r, 0, sizeof r);
        assert_true(plumb_ref_run(poly, NULL, in, POLY_ENC_PARAMS, NULL, &r, &d));
        expect_bits_equal(out[0], r.outputs[0], n, "empty sequence vs reference");
        assert_int_equal(out[0]->dims[0], n);
        plumb_ref_result_free(&r);
        free_all(out, 1);
        free_all(in, POLY_ENC_PARAMS);
    }
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, NULL, &st));
    assert_int_equal(st.compiles, 1);
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

/* Length 65 is above the bound: the run fails before any work with the
 * error naming the parameter, the dimension, the size and the bound, and
 * nothing compiles; the next length within the bound still runs. */
static void test_encoder_above_bound(void **state)
{
    (void)state;
    ir_module *poly = encoder(-1);
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_tensor *in[POLY_ENC_PARAMS], *out[1] = {NULL};
    make_inputs(65, 7, in);
    bool ok = plumb_runtime_run(rt, poly, NULL, in, POLY_ENC_PARAMS, out, 1, NULL, &d);
    assert_false(ok);
    assert_null(out[0]);
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "parameter 0 (%ids) dimension 0: size 65 exceeds its bound 64"));
    free_all(in, POLY_ENC_PARAMS);
    make_inputs(64, 8, in);
    memset(&d, 0, sizeof d);
    ok = plumb_runtime_run(rt, poly, NULL, in, POLY_ENC_PARAMS, out, 1, NULL, &d);
    if (!ok)
        plumb_diag_print(&d, stderr);
    assert_true(ok);
    assert_int_equal(out[0]->dims[0], 64);
    free_all(out, 1);
    free_all(in, POLY_ENC_PARAMS);
    plumb_runtime_stats st;
    assert_true(plumb_runtime_stats_get(rt, "main", &st));
    assert_int_equal(st.compiles, 1);
    assert_int_equal(st.recompiles, 0);
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

/* A caller-owned result whose dims are not this run's is refused (the
 * `?` dims are checked once the run knows them), naming both shapes. */
static void test_encoder_run_into_wrong_length(void **state)
{
    (void)state;
    ir_module *poly = encoder(-1);
    plumb_runtime *rt = new_runtime();
    plumb_diag d;
    memset(&d, 0, sizeof d);
    plumb_executable *ex = plumb_runtime_compile(rt, poly, NULL, &d);
    assert_non_null(ex);
    plumb_tensor *in[POLY_ENC_PARAMS];
    make_inputs(10, 3, in);
    int64_t od[2] = {11, POLY_ENC_D};
    plumb_tensor *into = plumb_tensor_new(PLUMB_F32, 2, od, 0, &d);
    assert_non_null(into);
    assert_false(plumb_executable_run_into(ex, in, POLY_ENC_PARAMS, &into, 1, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "output 0 is tensor<11x32xf32> but result 0 of @main is tensor<10x32xf32> in this run"));
    /* a static dim that differs is refused before the run */
    plumb_tensor_free(into);
    int64_t od2[2] = {10, 31};
    into = plumb_tensor_new(PLUMB_F32, 2, od2, 0, &d);
    memset(&d, 0, sizeof d);
    assert_false(plumb_executable_run_into(ex, in, POLY_ENC_PARAMS, &into, 1, NULL, &d));
    assert_int_equal(d.code, PLUMB_ERR_USAGE);
    assert_non_null(strstr(d.msg, "output 0 is tensor<10x31xf32>"));
    plumb_tensor_free(into);
    free_all(in, POLY_ENC_PARAMS);
    plumb_runtime_destroy(rt);
    ir_module_free(poly);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoder_compiles_once),
        cmocka_unit_test(test_encoder_bitwise_with_reference),
        cmocka_unit_test(test_encoder_fuses_like_static),
        cmocka_unit_test(test_encoder_empty_sequence),
        cmocka_unit_test(test_encoder_no_allocation_below_bound),
        cmocka_unit_test(test_encoder_above_bound),
        cmocka_unit_test(test_encoder_run_into_wrong_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
