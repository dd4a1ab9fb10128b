/* A small transformer-encoder block as StableHLO text, in two forms: with a
 * polymorphic sequence length (`?` bounded by POLY_ENC_BOUND, the shapes of
 * the broadcasts computed with get_dimension_size, as JAX's
 * shape-polymorphic export writes them) and with a static length n. The
 * same computation either way: embedding gather -> layer_norm -> q, k, v
 * projections (static contracted dims) -> scores q k^T scaled -> softmax over
 * the `?` key dim -> attention -> residual -> relu MLP -> residual.
 *
 * Shared by the runtime's polymorphism test (tests/runtime/
 * test_poly_encoder.c) and the benchmark (bench/bench_work.c) so both
 * measure the same program. Header only: each includer gets its own copy. */
#ifndef PLUMB_BENCH_POLY_ENCODER_H
#define PLUMB_BENCH_POLY_ENCODER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLY_ENC_BOUND 64
#define POLY_ENC_D 32      /* model width */
#define POLY_ENC_F 64      /* MLP width */
#define POLY_ENC_V 64      /* vocabulary (embedding rows) */
#define POLY_ENC_PARAMS 9  /* ids, emb, gamma, beta, wq, wk, wv, w1, w2 */

typedef struct poly_enc_buf {
    char *s;
    size_t n, cap;
    int failed;
} poly_enc_buf;

static void poly_enc_put(poly_enc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void poly_enc_put(poly_enc_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t ncap = b->cap ? b->cap * 2 : 8192;
        while (ncap <= b->n + (size_t)k)
            ncap *= 2;
        char *ns = realloc(b->s, ncap);
        if (!ns) {
            b->failed = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
    }
}

/* The encoder's text: n < 0 gives the polymorphic form (sequence length
 * `?` bounded by POLY_ENC_BOUND), n >= 0 the static form of length n; eps
 * is layer_norm's epsilon as an f32 literal. NULL when out of memory;
 * free() the result. */
static inline char *poly_encoder_text_eps(int64_t n, const char *eps)
{
    const int poly = n < 0;
    char T1[96], T2D[96], T2F[96], TSS[96], TI[96];
    if (poly) {
        snprintf(T1, sizeof T1, "tensor<?xf32, #stablehlo.bounds<%d>>", POLY_ENC_BOUND);
        snprintf(TI, sizeof TI, "tensor<?xi32, #stablehlo.bounds<%d>>", POLY_ENC_BOUND);
        snprintf(T2D, sizeof T2D, "tensor<?x%dxf32, #stablehlo.bounds<%d, ?>>", POLY_ENC_D, POLY_ENC_BOUND);
        snprintf(T2F, sizeof T2F, "tensor<?x%dxf32, #stablehlo.bounds<%d, ?>>", POLY_ENC_F, POLY_ENC_BOUND);
        snprintf(TSS, sizeof TSS, "tensor<?x?xf32, #stablehlo.bounds<%d, %d>>", POLY_ENC_BOUND, POLY_ENC_BOUND);
    } else {
        snprintf(T1, sizeof T1, "tensor<%lldxf32>", (long long)n);
        snprintf(TI, sizeof TI, "tensor<%lldxi32>", (long long)n);
        snprintf(T2D, sizeof T2D, "tensor<%lldx%dxf32>", (long long)n, POLY_ENC_D);
        snprintf(T2F, sizeof T2F, "tensor<%lldx%dxf32>", (long long)n, POLY_ENC_F);
        snprintf(TSS, sizeof TSS, "tensor<%lldx%lldxf32>", (long long)n, (long long)n);
    }
    const int D = POLY_ENC_D, F = POLY_ENC_F, V = POLY_ENC_V;
    poly_enc_buf b = {0};
    poly_enc_put(&b,
                 "func.func @main(%%ids: %s, %%emb: tensor<%dx%dxf32>, %%gamma: tensor<%dxf32>, %%beta: tensor<%dxf32>, "
                 "%%wq: tensor<%dx%dxf32>, %%wk: tensor<%dx%dxf32>, %%wv: tensor<%dx%dxf32>, %%w1: tensor<%dx%dxf32>, "
                 "%%w2: tensor<%dx%dxf32>) -> %s {\n",
                 TI, V, D, D, D, D, D, D, D, D, D, D, F, F, D, T2D);
    poly_enc_put(&b,
                 "  %%x = \"stablehlo.gather\"(%%emb, %%ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
                 "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %d>}> "
                 ": (tensor<%dx%dxf32>, %s) -> %s\n",
                 D, V, D, TI, T2D);
    if (poly) {
        /* the shapes the broadcasts expand to: [n], [n, D], [n, n], [n, F] */
        poly_enc_put(&b, "  %%n = stablehlo.get_dimension_size %%x, dim = 0 : (%s) -> tensor<i32>\n", T2D);
        poly_enc_put(&b, "  %%sh1 = stablehlo.reshape %%n : (tensor<i32>) -> tensor<1xi32>\n");
        poly_enc_put(&b, "  %%cD = stablehlo.constant dense<%d> : tensor<1xi32>\n", D);
        poly_enc_put(&b, "  %%cF = stablehlo.constant dense<%d> : tensor<1xi32>\n", F);
        poly_enc_put(&b, "  %%shD = stablehlo.concatenate %%sh1, %%cD, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n");
        poly_enc_put(&b, "  %%shS = stablehlo.concatenate %%sh1, %%sh1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n");
        poly_enc_put(&b, "  %%shF = stablehlo.concatenate %%sh1, %%cF, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n");
    }
    /* %dst = broadcast of %src (type st) along dims to type dt (shape operand sh) */
#define POLY_ENC_BC(dst, src, st, dims, dt, sh)                                                                   \
    do {                                                                                                          \
        if (poly)                                                                                                 \
            poly_enc_put(&b, "  %%%s = stablehlo.dynamic_broadcast_in_dim %%%s, %%%s, dims = [%s] : (%s, %s) -> %s\n", \
                         dst, src, sh, dims, st, strcmp(sh, "sh1") ? "tensor<2xi32>" : "tensor<1xi32>", dt);      \
        else                                                                                                      \
            poly_enc_put(&b, "  %%%s = stablehlo.broadcast_in_dim %%%s, dims = [%s] : (%s) -> %s\n", dst, src, dims, st, \
                         dt);                                                                                     \
    } while (0)
    char TD[32];
    snprintf(TD, sizeof TD, "tensor<%dxf32>", D);
    /* layer_norm over the model width */
    poly_enc_put(&b, "  %%zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n");
    poly_enc_put(&b, "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n");
    poly_enc_put(&b, "  %%invd = stablehlo.constant dense<3.125000e-02> : tensor<f32>\n");
    poly_enc_put(&b, "  %%eps = stablehlo.constant dense<%s> : tensor<f32>\n", eps);
    poly_enc_put(&b, "  %%scale = stablehlo.constant dense<0.176776692> : tensor<f32>\n");
    poly_enc_put(&b, "  %%s = stablehlo.reduce(%%x init: %%zero) applies stablehlo.add across dimensions = [1] : (%s, tensor<f32>) -> %s\n", T2D, T1);
    POLY_ENC_BC("invdb", "invd", "tensor<f32>", "", T1, "sh1");
    poly_enc_put(&b, "  %%mean = stablehlo.multiply %%s, %%invdb : %s\n", T1);
    POLY_ENC_BC("meanb", "mean", T1, "0", T2D, "shD");
    poly_enc_put(&b, "  %%xc = stablehlo.subtract %%x, %%meanb : %s\n", T2D);
    poly_enc_put(&b, "  %%sq = stablehlo.multiply %%xc, %%xc : %s\n", T2D);
    poly_enc_put(&b, "  %%vs = stablehlo.reduce(%%sq init: %%zero) applies stablehlo.add across dimensions = [1] : (%s, tensor<f32>) -> %s\n", T2D, T1);
    poly_enc_put(&b, "  %%var = stablehlo.multiply %%vs, %%invdb : %s\n", T1);
    POLY_ENC_BC("epsb", "eps", "tensor<f32>", "", T1, "sh1");
    poly_enc_put(&b, "  %%ve = stablehlo.add %%var, %%epsb : %s\n", T1);
    poly_enc_put(&b, "  %%rs = stablehlo.rsqrt %%ve : %s\n", T1);
    POLY_ENC_BC("rsb", "rs", T1, "0", T2D, "shD");
    poly_enc_put(&b, "  %%xn = stablehlo.multiply %%xc, %%rsb : %s\n", T2D);
    POLY_ENC_BC("gb", "gamma", TD, "1", T2D, "shD");
    POLY_ENC_BC("bb", "beta", TD, "1", T2D, "shD");
    poly_enc_put(&b, "  %%h0 = stablehlo.multiply %%xn, %%gb : %s\n", T2D);
    poly_enc_put(&b, "  %%h = stablehlo.add %%h0, %%bb : %s\n", T2D);
    /* attention */
    const char *proj[3][2] = {{"q", "wq"}, {"k", "wk"}, {"v", "wv"}};
    for (int i = 0; i < 3; i++)
        poly_enc_put(&b, "  %%%s = stablehlo.dot_general %%h, %%%s, contracting_dims = [1] x [0] : (%s, tensor<%dx%dxf32>) -> %s\n",
                     proj[i][0], proj[i][1], T2D, D, D, T2D);
    poly_enc_put(&b, "  %%sc = stablehlo.dot_general %%q, %%k, contracting_dims = [1] x [1] : (%s, %s) -> %s\n", T2D, T2D, TSS);
    POLY_ENC_BC("scaleb", "scale", "tensor<f32>", "", TSS, "shS");
    poly_enc_put(&b, "  %%scs = stablehlo.multiply %%sc, %%scaleb : %s\n", TSS);
    poly_enc_put(&b, "  %%mx = stablehlo.reduce(%%scs init: %%ninf) applies stablehlo.maximum across dimensions = [1] : (%s, tensor<f32>) -> %s\n", TSS, T1);
    POLY_ENC_BC("mxb", "mx", T1, "0", TSS, "shS");
    poly_enc_put(&b, "  %%e0 = stablehlo.subtract %%scs, %%mxb : %s\n", TSS);
    poly_enc_put(&b, "  %%e = stablehlo.exponential %%e0 : %s\n", TSS);
    poly_enc_put(&b, "  %%es = stablehlo.reduce(%%e init: %%zero) applies stablehlo.add across dimensions = [1] : (%s, tensor<f32>) -> %s\n", TSS, T1);
    POLY_ENC_BC("esb", "es", T1, "0", TSS, "shS");
    poly_enc_put(&b, "  %%p = stablehlo.divide %%e, %%esb : %s\n", TSS);
    poly_enc_put(&b, "  %%att = stablehlo.dot_general %%p, %%v, contracting_dims = [1] x [0] : (%s, %s) -> %s\n", TSS, T2D, T2D);
    poly_enc_put(&b, "  %%r1 = stablehlo.add %%h, %%att : %s\n", T2D);
    /* MLP */
    poly_enc_put(&b, "  %%m1 = stablehlo.dot_general %%r1, %%w1, contracting_dims = [1] x [0] : (%s, tensor<%dx%dxf32>) -> %s\n", T2D, D, F, T2F);
    POLY_ENC_BC("zf", "zero", "tensor<f32>", "", T2F, "shF");
    poly_enc_put(&b, "  %%m1r = stablehlo.maximum %%m1, %%zf : %s\n", T2F);
    poly_enc_put(&b, "  %%m2 = stablehlo.dot_general %%m1r, %%w2, contracting_dims = [1] x [0] : (%s, tensor<%dx%dxf32>) -> %s\n", T2F, F, D, T2D);
    poly_enc_put(&b, "  %%out = stablehlo.add %%r1, %%m2 : %s\n", T2D);
    poly_enc_put(&b, "  return %%out : %s\n}\n", T2D);
#undef POLY_ENC_BC
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The encoder with layer_norm's epsilon 1e-5. */
static inline char *poly_encoder_text(int64_t n)
{
    return poly_encoder_text_eps(n, "9.99999974E-6");
}

/* Deterministic inputs of the encoder at length n (n token ids below
 * POLY_ENC_V; weights of a few bits scaled near 1/sqrt(width)), filled into
 * caller-allocated float/int arrays: ids[n], then emb[V*D], gamma[D],
 * beta[D], wq/wk/wv[D*D], w1[D*F], w2[F*D]. seed picks the values. */
static inline uint32_t poly_enc_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static inline void poly_enc_fill(float *p, size_t n, float scale, uint32_t *s)
{
    for (size_t i = 0; i < n; i++)
        p[i] = ((float)(poly_enc_rand(s) % 2001u) / 1000.0f - 1.0f) * scale;
}

#endif
