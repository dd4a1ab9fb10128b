/* batch_norm_inference, batch_norm_training and batch_norm_grad on the
 * compiled runtime (op set v2, docs/spec/batchnorm.md); tested against the
 * reference within the bound of docs/spec/batchnorm.md
 * (tests/runtime/test_batchnorm.c).
 *
 * f16, bf16, f32 and the FP8/FP6/FP4/E8M0 formats work in double, which holds them exactly and whose
 * range holds every sum, square and product of three of their values (so
 * nothing overflows or underflows on the way), f64 in long double
 * (run_feature_wide says why); each result element is rounded once into the
 * element type. The variance is the two-pass one of the
 * spec's decomposition: the mean first, then the mean of (x - mean)^2
 * (biased: divided by N), never E[x^2] - E[x]^2, which cancels. eps is the
 * f32 attribute rounded to the element type, as in the reference.
 *
 * The operand is viewed as [outer, F, inner] around feature_index. Features
 * are independent and split over the thread pool in fixed contiguous
 * ranges; each feature's sums run in one fixed order, so results do not
 * depend on the thread count. When the feature dimension is innermost
 * (inner = 1, NHWC) every loop runs across a row of consecutive features,
 * one accumulator per feature: independent lanes the compiler vectorizes.
 * Otherwise each feature's rows of `inner` consecutive elements are summed
 * in 8 fixed lanes (combined in a fixed tree), which vectorizes too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plumb/fp8.h"
#include "rt_internal.h"

enum { BN_INFERENCE, BN_TRAINING, BN_GRAD };

typedef struct bn_job {
    int kind;
    const plumb_tensor *x, *scale, *offset, *mean, *var, *g;
    plumb_tensor *y, *o1, *o2;   /* output / grad_operand; batch_mean / grad_scale; batch_var / grad_offset */
    uint64_t outer, F, inner, N;
    double eps;
    volatile int nomem;
} bn_job;

static void store_d(plumb_tensor *t, size_t i, double v)
{
    switch (t->dtype) {
    case PLUMB_F64: ((double *)t->data)[i] = v; break;
    case PLUMB_F32: ((float *)t->data)[i] = (float)v; break;
    case PLUMB_F16: ((uint16_t *)t->data)[i] = plumb_f64_to_f16(v); break;
    case PLUMB_BF16: ((uint16_t *)t->data)[i] = plumb_f64_to_bf16(v); break;
    default:
        /* FP8/FP6/FP4/E8M0: the double rounded once by the format's codec
         * (its overflow and NaN rules); the verifier admits float types only */
        if (plumb_fpfmt_get(t->dtype))
            plumb_store_bits(t->dtype, t->data, i, plumb_f64_to_small(plumb_fpfmt_get(t->dtype), v));
        break;
    }
}

/* n consecutive elements of t from index at, widened exactly to double */
static void load_row(const plumb_tensor *t, size_t at, size_t n, double *out)
{
    switch (t->dtype) {
    case PLUMB_F64: memcpy(out, (const double *)t->data + at, n * sizeof *out); break;
    case PLUMB_F32: {
        const float *p = (const float *)t->data + at;
        for (size_t i = 0; i < n; i++) out[i] = p[i];
        break;
    }
    default:
        for (size_t i = 0; i < n; i++) out[i] = plumb_load_f64(t->dtype, t->data, at + i);
        break;
    }
}

/* sum of p[0..n) in 8 lanes, combined ((0+4)+(2+6))+((1+5)+(3+7)) */
static double lane_sum(const double *p, size_t n)
{
    double l[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) l[k] += p[i + k];
    for (int k = 0; i < n; i++, k++) l[k] += p[i];
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

/* Per-feature constants, f relative to the range start. */
typedef struct bn_scratch {
    double *a, *b, *k1, *k2, *k3, *row, *row2;
} bn_scratch;

static double ldv(const plumb_tensor *t, uint64_t f) { return plumb_load_f64(t->dtype, t->data, (size_t)f); }

/* inner == 1: rows of consecutive features [f0, f1) */
static void run_rows(bn_job *j, uint64_t f0, uint64_t f1, bn_scratch *s)
{
    size_t w = (size_t)(f1 - f0), F = (size_t)j->F;
    double N = (double)j->N;
    double *a = s->a, *b = s->b, *k1 = s->k1, *k2 = s->k2, *k3 = s->k3, *r = s->row, *rg = s->row2;
    if (j->kind == BN_TRAINING) {
        memset(a, 0, w * sizeof *a);
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, (size_t)o * F + f0, w, r);
            for (size_t f = 0; f < w; f++) a[f] += r[f];
        }
        for (size_t f = 0; f < w; f++) a[f] /= N;   /* mean */
        memset(b, 0, w * sizeof *b);
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, (size_t)o * F + f0, w, r);
            for (size_t f = 0; f < w; f++) {
                double d = r[f] - a[f];
                b[f] += d * d;
            }
        }
        for (size_t f = 0; f < w; f++) {
            b[f] /= N;   /* biased variance */
            store_d(j->o1, f0 + f, a[f]);
            store_d(j->o2, f0 + f, b[f]);
        }
    } else if (j->kind == BN_INFERENCE) {
        for (size_t f = 0; f < w; f++) {
            a[f] = ldv(j->mean, f0 + f);
            b[f] = ldv(j->var, f0 + f);
        }
    }
    if (j->kind != BN_GRAD) {
        for (size_t f = 0; f < w; f++) {
            k1[f] = ldv(j->scale, f0 + f) / sqrt(b[f] + j->eps);
            k2[f] = ldv(j->offset, f0 + f);
        }
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, (size_t)o * F + f0, w, r);
            for (size_t f = 0; f < w; f++) r[f] = (r[f] - a[f]) * k1[f] + k2[f];
            for (size_t f = 0; f < w; f++) store_d(j->y, (size_t)o * F + f0 + f, r[f]);
        }
        return;
    }
    /* grad: a = sum g, b = sum g (x - mean) */
    for (size_t f = 0; f < w; f++) {
        k3[f] = ldv(j->mean, f0 + f);
        a[f] = b[f] = 0.0;
    }
    for (uint64_t o = 0; o < j->outer; o++) {
        load_row(j->x, (size_t)o * F + f0, w, r);
        load_row(j->g, (size_t)o * F + f0, w, rg);
        for (size_t f = 0; f < w; f++) {
            a[f] += rg[f];
            b[f] += rg[f] * (r[f] - k3[f]);
        }
    }
    for (size_t f = 0; f < w; f++) {
        double q = ldv(j->var, f0 + f) + j->eps, sd = sqrt(q);
        store_d(j->o2, f0 + f, a[f]);
        store_d(j->o1, f0 + f, b[f] / sd);
        k1[f] = ldv(j->scale, f0 + f) / (sd * N);
        k2[f] = b[f] / q;
    }
    for (uint64_t o = 0; o < j->outer; o++) {
        load_row(j->x, (size_t)o * F + f0, w, r);
        load_row(j->g, (size_t)o * F + f0, w, rg);
        for (size_t f = 0; f < w; f++) r[f] = k1[f] * ((N * rg[f] - a[f]) - (r[f] - k3[f]) * k2[f]);
        for (size_t f = 0; f < w; f++) store_d(j->y, (size_t)o * F + f0 + f, r[f]);
    }
}

/* inner > 1: feature f's rows of `inner` consecutive elements */
static void run_feature(bn_job *j, uint64_t f, bn_scratch *s)
{
    size_t n = (size_t)j->inner;
    double N = (double)j->N;
    double *r = s->row, *rg = s->row2;
    double mean, var, sc = ldv(j->scale, f);
#define ROW(o) ((size_t)(((o) * j->F + f) * j->inner))
    if (j->kind == BN_GRAD) {
        double m = ldv(j->mean, f), G = 0.0, P = 0.0;
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, ROW(o), n, r);
            load_row(j->g, ROW(o), n, rg);
            G += lane_sum(rg, n);
            for (size_t i = 0; i < n; i++) r[i] = rg[i] * (r[i] - m);
            P += lane_sum(r, n);
        }
        double q = ldv(j->var, f) + j->eps, sd = sqrt(q), k1 = sc / (sd * N), k2 = P / q;
        store_d(j->o2, f, G);
        store_d(j->o1, f, P / sd);
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, ROW(o), n, r);
            load_row(j->g, ROW(o), n, rg);
            for (size_t i = 0; i < n; i++) r[i] = k1 * ((N * rg[i] - G) - (r[i] - m) * k2);
            for (size_t i = 0; i < n; i++) store_d(j->y, ROW(o) + i, r[i]);
        }
        return;
    }
    if (j->kind == BN_TRAINING) {
        double sum = 0.0, sq = 0.0;
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, ROW(o), n, r);
            sum += lane_sum(r, n);
        }
        mean = sum / N;
        for (uint64_t o = 0; o < j->outer; o++) {
            load_row(j->x, ROW(o), n, r);
            for (size_t i = 0; i < n; i++) r[i] = (r[i] - mean) * (r[i] - mean);
            sq += lane_sum(r, n);
        }
        var = sq / N;
        store_d(j->o1, f, mean);
        store_d(j->o2, f, var);
    } else {
        mean = ldv(j->mean, f);
        var = ldv(j->var, f);
    }
    double k1 = sc / sqrt(var + j->eps), off = ldv(j->offset, f);
    for (uint64_t o = 0; o < j->outer; o++) {
        load_row(j->x, ROW(o), n, r);
        for (size_t i = 0; i < n; i++) r[i] = (r[i] - mean) * k1 + off;
        for (size_t i = 0; i < n; i++) store_d(j->y, ROW(o) + i, r[i]);
    }
#undef ROW
}

/* f64 operands: one feature in long double, element by element in a fixed
 * order. Its exponent range (x86's 80-bit and aarch64's binary128 format
 * both have 15 exponent bits) holds every sum, square and product of three
 * f64 values, so no intermediate overflows or underflows where the exact
 * result is an f64 (double would: the variance of values near 1e308 is
 * inf, that of subnormals 0) and its precision (64 or 113 bits) keeps
 * each step's error far below f64's; each result is rounded once into f64.
 * Where long double is no wider than double this is the double algorithm. */
static void store_wide(plumb_tensor *t, size_t i, long double v) { ((double *)t->data)[i] = (double)v; }

static long double ldw(const plumb_tensor *t, uint64_t i) { return ((const double *)t->data)[i]; }

static void run_feature_wide(bn_job *j, uint64_t f)
{
    long double N = (long double)j->N, eps = j->eps, sc = ldw(j->scale, f), mean, var;
#define AT(o, i) ((size_t)(((o) * j->F + f) * j->inner + (i)))
    if (j->kind == BN_GRAD) {
        long double m = ldw(j->mean, f), G = 0.0L, P = 0.0L;
        for (uint64_t o = 0; o < j->outer; o++)
            for (uint64_t i = 0; i < j->inner; i++) {
                long double g = ldw(j->g, AT(o, i));
                G += g;
                P += g * (ldw(j->x, AT(o, i)) - m);
            }
        long double q = ldw(j->var, f) + eps, sd = sqrtl(q), k1 = sc / (sd * N), k2 = P / q;
        store_wide(j->o2, f, G);
        store_wide(j->o1, f, P / sd);
        for (uint64_t o = 0; o < j->outer; o++)
            for (uint64_t i = 0; i < j->inner; i++) {
                long double g = ldw(j->g, AT(o, i)), d = ldw(j->x, AT(o, i)) - m;
                store_wide(j->y, AT(o, i), k1 * ((N * g - G) - d * k2));
            }
        return;
    }
    if (j->kind == BN_TRAINING) {
        long double S = 0.0L, V = 0.0L;
        for (uint64_t o = 0; o < j->outer; o++)
            for (uint64_t i = 0; i < j->inner; i++) S += ldw(j->x, AT(o, i));
        mean = S / N;
        for (uint64_t o = 0; o < j->outer; o++)
            for (uint64_t i = 0; i < j->inner; i++) {
                long double d = ldw(j->x, AT(o, i)) - mean;
                V += d * d;
            }
        var = V / N;
        store_wide(j->o1, f, mean);
        store_wide(j->o2, f, var);
    } else {
        mean = ldw(j->mean, f);
        var = ldw(j->var, f);
    }
    long double k1 = sc / sqrtl(var + eps), off = ldw(j->offset, f);
    for (uint64_t o = 0; o < j->outer; o++)
        for (uint64_t i = 0; i < j->inner; i++)
            store_wide(j->y, AT(o, i), (ldw(j->x, AT(o, i)) - mean) * k1 + off);
#undef AT
}

static void bn_range(void *ctx, uint64_t begin, uint64_t end, uint32_t chunk)
{
    (void)chunk;
    bn_job *j = ctx;
    if (j->x->dtype == PLUMB_F64) {
        for (uint64_t f = begin; f < end; f++) run_feature_wide(j, f);
        return;
    }
    size_t w = (size_t)(end - begin), rowlen = j->inner == 1 ? w : (size_t)j->inner;
    double *mem = malloc((5 * w + 2 * rowlen + 1) * sizeof *mem);
    if (!mem) {
        j->nomem = 1;
        return;
    }
    bn_scratch s = {mem, mem + w, mem + 2 * w, mem + 3 * w, mem + 4 * w, mem + 5 * w, mem + 5 * w + rowlen};
    if (j->inner == 1)
        run_rows(j, begin, end, &s);
    else
        for (uint64_t f = begin; f < end; f++) run_feature(j, f, &s);
    free(mem);
}

static bool float_type(plumb_dtype t)
{
    return t == PLUMB_F64 || t == PLUMB_F32 || t == PLUMB_F16 || t == PLUMB_BF16 || plumb_fpfmt_get(t);
}

/* eps (an f32 value) rounded to t */
static double eps_in(plumb_dtype t, double eps)
{
    switch (t) {
    case PLUMB_F16: { uint16_t h = plumb_f64_to_f16(eps); return plumb_load_f64(t, &h, 0); }
    case PLUMB_BF16: { uint16_t h = plumb_f64_to_bf16(eps); return plumb_load_f64(t, &h, 0); }
    case PLUMB_F32: return (float)eps;
    default:
        if (plumb_fpfmt_get(t))   /* one rounding, the codec's (ir/fp8.c) */
            return plumb_small_to_f64(plumb_fpfmt_get(t), plumb_f64_to_small(plumb_fpfmt_get(t), eps));
        return eps;
    }
}

static bool bn_run(rt_exec *x, const ir_op *op, bn_job *j)
{
    const plumb_tensor *t = j->x;
    int64_t fi = op->a.feature_index;
    if (fi < 0 || (uint64_t)fi >= t->rank || !float_type(t->dtype) || j->y->nbytes != t->nbytes)
        return rt_fail(x, op, PLUMB_ERR_INVALID, "operand and result must be float tensors of one type with feature_index %lld < rank %u",
                       (long long)fi, t->rank);
    j->outer = j->inner = 1;
    for (uint32_t d = 0; d < t->rank; d++) {
        if ((int64_t)d < fi) j->outer *= (uint64_t)t->dims[d];
        if ((int64_t)d > fi) j->inner *= (uint64_t)t->dims[d];
    }
    j->F = (uint64_t)t->dims[fi];
    j->N = j->outer * j->inner;
    j->eps = eps_in(t->dtype, op->a.epsilon);
    if (j->N == 0) {
        /* nothing to normalize: the reductions are empty (sums +0, so the
         * mean and variance are 0/0 = NaN and grad_scale and grad_offset 0) */
        for (uint64_t f = 0; f < j->F; f++) {
            if (j->kind == BN_TRAINING) {
                store_d(j->o1, f, NAN);
                store_d(j->o2, f, NAN);
            } else if (j->kind == BN_GRAD) {
                double sd = sqrt(plumb_load_f64(j->var->dtype, j->var->data, f) + j->eps);
                store_d(j->o1, f, 0.0 / sd);
                store_d(j->o2, f, 0.0);
            }
        }
        return true;
    }
    /* ranges of at least 16 features, or one feature when rows are long */
    uint64_t grain = j->inner == 1 ? 16 : 1;
    if (j->F)
        rt_parallel_for(x, j->F, grain, bn_range, j);
    if (j->nomem)
        return rt_fail(x, op, PLUMB_ERR_NOMEM, "no memory for batch norm scratch rows");
    return true;
}

bool rt_op_BATCH_NORM_INFERENCE(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    bn_job j = {.kind = BN_INFERENCE, .x = in[0], .scale = in[1], .offset = in[2], .mean = in[3], .var = in[4], .y = out[0]};
    return bn_run(x, op, &j);
}

bool rt_op_BATCH_NORM_TRAINING(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    bn_job j = {.kind = BN_TRAINING, .x = in[0], .scale = in[1], .offset = in[2], .y = out[0], .o1 = out[1], .o2 = out[2]};
    return bn_run(x, op, &j);
}

bool rt_op_BATCH_NORM_GRAD(rt_exec *x, const ir_op *op, plumb_tensor *const *in, plumb_tensor *const *out)
{
    bn_job j = {.kind = BN_GRAD, .x = in[0], .scale = in[1], .mean = in[2], .var = in[3], .g = in[4],
                .y = out[0], .o1 = out[1], .o2 = out[2]};
    return bn_run(x, op, &j);
}
