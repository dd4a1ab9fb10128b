/* plumb-bench --suite broad (docs/bench.md, "The broad suite"): programs of
 * every op class and element type at realistic sizes, timed on the runtime
 * against the machine's floor measured in the same run (STREAM triad for
 * memory-bound work, the reference sgemm rate for contractions) and against
 * numpy (Debian's python3-numpy, run as /usr/bin/python3) on the same
 * shapes and types, in the same run. Each program is first checked on a
 * small instance against the reference interpreter; a workload that does
 * not agree is reported and not timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "plumb/ir.h"
#include "plumb/nn.h"
#include "plumb/ref.h"
#include "plumb/tensor.h"

typedef enum broad_floor { FLOOR_STREAM, FLOOR_GEMM } broad_floor;

/* One workload: a program builder at full or validation size, how its
 * bytes and flops count, and the numpy code for the same computation. */
typedef struct broad_work {
    const char *name;
    const char *what;
    broad_floor floor;
    bool exact;              /* integer or data movement: validated bit for bit */
    int64_t index_limit;     /* i32 inputs drawn from [0, index_limit); 0 = small signed ints */
    /* Builds the program; small = the validation instance. */
    ir_module *(*build)(const struct broad_work *w, bool small, plumb_diag *d);
    int64_t a, b, c, d;      /* sizes, read by build (meaning per workload) */
    plumb_dtype t;           /* element type, where the workload has one */
    /* numpy: setup (defines the inputs) and the timed statement; setup for
     * small is never run. "%S" in either stands for the sizes, see np_code. */
    const char *np_setup, *np_stmt;
    const char *np_note;     /* why numpy's column is not like for like, or NULL */
} broad_work;

/* ---- program builders ------------------------------------------------------- */

static ir_module *parse_text(const char *src, plumb_diag *d)
{
    ir_module *m = ir_parse(src, strlen(src), "broad", NULL, d);
    if (m && !ir_verify(m, NULL, d)) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

static int64_t sz(int64_t full, bool small, int64_t div) { return small ? (full / div > 0 ? full / div : 1) : full; }

static ir_module *b_gather(const broad_work *w, bool small, plumb_diag *d)
{
    long long rows = w->a, cols = sz(w->b, small, 8), k = sz(w->c, small, 64);
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%t: tensor<%lldx%lldxf32>, %%i: tensor<%lldx1xi32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%g = \"stablehlo.gather\"(%%t, %%i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
             "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %lld>}> "
             ": (tensor<%lldx%lldxf32>, tensor<%lldx1xi32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%g : tensor<%lldx%lldxf32>\n}\n",
             rows, cols, k, k, cols, cols, rows, cols, k, k, cols, k, cols);
    return parse_text(s, d);
}

static ir_module *b_scatter_add(const broad_work *w, bool small, plumb_diag *d)
{
    long long rows = sz(w->a, small, 16), cols = sz(w->b, small, 8), k = sz(w->c, small, 16);
    char s[1400];
    snprintf(s, sizeof s,
             "func.func @main(%%t: tensor<%lldx%lldxf32>, %%i: tensor<%lldx1xi32>, %%u: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%r = \"stablehlo.scatter\"(%%t, %%i, %%u) <{scatter_dimension_numbers = #stablehlo.scatter<"
             "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
             "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "      %%s = stablehlo.add %%a, %%b : tensor<f32>\n"
             "      stablehlo.return %%s : tensor<f32>\n"
             "    }) : (tensor<%lldx%lldxf32>, tensor<%lldx1xi32>, tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldxf32>\n}\n",
             rows, cols, k, k, cols, rows, cols, rows, cols, k, k, cols, rows, cols, rows, cols);
    return parse_text(s, d);
}

/* nn-built programs: one parameter of w->t, shape [a, b] (or [a*b]). */
typedef enum nn_kind { NN_SOFTMAX, NN_LAYER_NORM, NN_GELU_ERF, NN_EXP, NN_REDUCE_MAX0, NN_REDUCE_SUM1,
                       NN_TRANSPOSE, NN_LOG_ABS, NN_LOGISTIC, NN_TANH, NN_EXPM1, NN_LOG1P_ABS, NN_SINE, NN_COSINE } nn_kind;

static ir_module *b_nn(const broad_work *w, bool small, plumb_diag *d, nn_kind k, uint32_t rank,
                       const int64_t *dims, const int64_t *perm)
{
    ir_module *m = ir_module_new("broad");
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, d) || !plumb_nn_begin_func(&nn, "main", true)) {
        ir_module_free(m);
        return NULL;
    }
    (void)small;
    ir_value *x = plumb_nn_param(&nn, w->t, rank, dims), *y = NULL;
    int64_t d0 = 0, d1 = 1;
    switch (k) {
    case NN_SOFTMAX: y = plumb_nn_softmax(&nn, x, -1); break;
    case NN_LAYER_NORM: y = plumb_nn_layer_norm(&nn, x, NULL, NULL, 1e-5); break;
    case NN_GELU_ERF: y = plumb_nn_gelu(&nn, x, PLUMB_NN_GELU_ERF); break;
    case NN_EXP: y = plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL, x); break;
    case NN_REDUCE_MAX0: y = plumb_nn_reduce(&nn, x, PLUMB_NN_MAX, &d0, 1); break;
    case NN_REDUCE_SUM1: y = plumb_nn_reduce(&nn, x, PLUMB_NN_SUM, &d1, 1); break;
    case NN_TRANSPOSE: y = plumb_nn_transpose(&nn, x, perm); break;
    case NN_LOG_ABS: y = plumb_nn_unary(&nn, PLUMB_OP_LOG, plumb_nn_unary(&nn, PLUMB_OP_ABS, x)); break;
    case NN_LOGISTIC: y = plumb_nn_unary(&nn, PLUMB_OP_LOGISTIC, x); break;
    case NN_TANH: y = plumb_nn_unary(&nn, PLUMB_OP_TANH, x); break;
    case NN_EXPM1: y = plumb_nn_unary(&nn, PLUMB_OP_EXPONENTIAL_MINUS_ONE, x); break;
    case NN_SINE: y = plumb_nn_unary(&nn, PLUMB_OP_SINE, x); break;
    case NN_COSINE: y = plumb_nn_unary(&nn, PLUMB_OP_COSINE, x); break;
    case NN_LOG1P_ABS: y = plumb_nn_unary(&nn, PLUMB_OP_LOG_PLUS_ONE, plumb_nn_unary(&nn, PLUMB_OP_ABS, x)); break;
    }
    if (!y || !plumb_nn_return(&nn, &y, 1) || !plumb_nn_ok(&nn) || !ir_verify(m, NULL, d)) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

static ir_module *b_rows(const broad_work *w, bool small, plumb_diag *d, nn_kind k)
{
    int64_t dims[2] = {sz(w->a, small, 64), w->b};
    return b_nn(w, small, d, k, 2, dims, NULL);
}

static ir_module *b_softmax(const broad_work *w, bool s, plumb_diag *d) { return b_rows(w, s, d, NN_SOFTMAX); }
static ir_module *b_layer_norm(const broad_work *w, bool s, plumb_diag *d) { return b_rows(w, s, d, NN_LAYER_NORM); }
static ir_module *b_reduce_max0(const broad_work *w, bool s, plumb_diag *d) { return b_rows(w, s, d, NN_REDUCE_MAX0); }
static ir_module *b_reduce_sum1(const broad_work *w, bool s, plumb_diag *d) { return b_rows(w, s, d, NN_REDUCE_SUM1); }

static ir_module *b_flat(const broad_work *w, bool small, plumb_diag *d, nn_kind k)
{
    int64_t n = sz(w->a, small, 1024);
    return b_nn(w, small, d, k, 1, &n, NULL);
}

static ir_module *b_gelu(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_GELU_ERF); }
static ir_module *b_exp(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_EXP); }
static ir_module *b_log(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_LOG_ABS); }
static ir_module *b_logistic(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_LOGISTIC); }
static ir_module *b_tanh(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_TANH); }
static ir_module *b_expm1(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_EXPM1); }
static ir_module *b_log1p(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_LOG1P_ABS); }
static ir_module *b_sine(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_SINE); }
static ir_module *b_cosine(const broad_work *w, bool s, plumb_diag *d) { return b_flat(w, s, d, NN_COSINE); }

/* remainder of two parameters of w->t, shape [a] */
static ir_module *b_remainder(const broad_work *w, bool small, plumb_diag *d)
{
    int64_t n = sz(w->a, small, 1024);
    ir_module *m = ir_module_new("broad");
    plumb_nn nn;
    if (!m || !plumb_nn_init(&nn, m, d) || !plumb_nn_begin_func(&nn, "main", true)) {
        ir_module_free(m);
        return NULL;
    }
    ir_value *x = plumb_nn_param(&nn, w->t, 1, &n), *y = plumb_nn_param(&nn, w->t, 1, &n);
    ir_value *r = plumb_nn_binary(&nn, PLUMB_OP_REMAINDER, x, y);
    if (!r || !plumb_nn_return(&nn, &r, 1) || !plumb_nn_ok(&nn) || !ir_verify(m, NULL, d)) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

/* power(|x|, y) (a positive base: uniform inputs would give NaN on half
 * the lanes) or atan2(x, y) of two parameters of w->t, shape [a]. */
static ir_module *b_binary_math(const broad_work *w, bool small, plumb_diag *d, bool power)
{
    long long n = sz(w->a, small, 1024);
    const char *ty = w->t == PLUMB_F32 ? "f32" : "f64";
    char s[1024];
    if (power)
        snprintf(s, sizeof s,
                 "func.func @main(%%x: tensor<%lldx%s>, %%y: tensor<%lldx%s>) -> tensor<%lldx%s> {\n"
                 "  %%a = stablehlo.abs %%x : tensor<%lldx%s>\n"
                 "  %%r = stablehlo.power %%a, %%y : tensor<%lldx%s>\n"
                 "  func.return %%r : tensor<%lldx%s>\n}\n",
                 n, ty, n, ty, n, ty, n, ty, n, ty, n, ty);
    else
        snprintf(s, sizeof s,
                 "func.func @main(%%x: tensor<%lldx%s>, %%y: tensor<%lldx%s>) -> tensor<%lldx%s> {\n"
                 "  %%r = stablehlo.atan2 %%x, %%y : tensor<%lldx%s>\n"
                 "  func.return %%r : tensor<%lldx%s>\n}\n",
                 n, ty, n, ty, n, ty, n, ty, n, ty);
    return parse_text(s, d);
}
static ir_module *b_power(const broad_work *w, bool s, plumb_diag *d) { return b_binary_math(w, s, d, true); }
static ir_module *b_atan2(const broad_work *w, bool s, plumb_diag *d) { return b_binary_math(w, s, d, false); }

/* Transposes: a = rank, dims all b (the validation instance: all c). */
static ir_module *b_transpose(const broad_work *w, bool small, plumb_diag *d)
{
    static const int64_t perms[5][4] = {{0}, {0}, {1, 0}, {2, 0, 1}, {0, 2, 1, 3}};
    int64_t dims[4];
    for (int i = 0; i < w->a; i++)
        dims[i] = small ? w->c : w->b;
    return b_nn(w, small, d, NN_TRANSPOSE, (uint32_t)w->a, dims, perms[w->a]);
}

/* (a * b + c) >> 3 on i32. */
static ir_module *b_int_chain(const broad_work *w, bool small, plumb_diag *d)
{
    long long n = sz(w->a, small, 1024);
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%a: tensor<%lldxi32>, %%b: tensor<%lldxi32>, %%c: tensor<%lldxi32>) -> tensor<%lldxi32> {\n"
             "  %%m = stablehlo.multiply %%a, %%b : tensor<%lldxi32>\n"
             "  %%s = stablehlo.add %%m, %%c : tensor<%lldxi32>\n"
             "  %%k = stablehlo.constant dense<3> : tensor<i32>\n"
             "  %%kb = stablehlo.broadcast_in_dim %%k, dims = [] : (tensor<i32>) -> tensor<%lldxi32>\n"
             "  %%r = stablehlo.shift_right_arithmetic %%s, %%kb : tensor<%lldxi32>\n"
             "  func.return %%r : tensor<%lldxi32>\n}\n",
             n, n, n, n, n, n, n, n, n);
    return parse_text(s, d);
}

/* a batches of (b x c) . (c x b), f32. */
static ir_module *b_bgemm(const broad_work *w, bool small, plumb_diag *d)
{
    long long nb = sz(w->a, small, 16), m = w->b, k = w->c;
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldx%lldxf32>, %%y: tensor<%lldx%lldx%lldxf32>) -> tensor<%lldx%lldx%lldxf32> {\n"
             "  %%r = stablehlo.dot_general %%x, %%y, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
             "(tensor<%lldx%lldx%lldxf32>, tensor<%lldx%lldx%lldxf32>) -> tensor<%lldx%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldx%lldxf32>\n}\n",
             nb, m, k, nb, k, m, nb, m, m, nb, m, k, nb, k, m, nb, m, m, nb, m, m);
    return parse_text(s, d);
}

/* concatenate two [a, b] along 0, drop the outer ring, pad it back with 0. */
static ir_module *b_concat_slice_pad(const broad_work *w, bool small, plumb_diag *d)
{
    long long r = sz(w->a, small, 32), c = sz(w->b, small, 32);
    char s[1400];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldxf32>, %%y: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%c = stablehlo.concatenate %%x, %%y, dim = 0 : (tensor<%lldx%lldxf32>, tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32>\n"
             "  %%s = stablehlo.slice %%c [1:%lld, 1:%lld] : (tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32>\n"
             "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "  %%p = stablehlo.pad %%s, %%z, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<%lldx%lldxf32>, tensor<f32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%p : tensor<%lldx%lldxf32>\n}\n",
             r, c, r, c, 2 * r, c, r, c, r, c, 2 * r, c, 2 * r - 1, c - 1, 2 * r, c, 2 * r - 2, c - 2, 2 * r - 2,
             c - 2, 2 * r, c, 2 * r, c);
    return parse_text(s, d);
}

/* ---- the probe's workloads (docs/bench.md "Probe: workloads never tuned
 * on"): op classes that ran 3-800x slower than numpy before their general
 * paths, and ones still slow ---------------------------------------------- */

/* argmax over dim 1 of a x b f32: reduce of (value, iota index) pairs,
 * ties to the lower index (a body no fast path recognises). */
static ir_module *b_argmax(const broad_work *w, bool small, plumb_diag *d)
{
    long long r = sz(w->a, small, 64), c = w->b;
    char s[2400];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldxf32>) -> tensor<%lldxi32> {\n"
             "  %%i = stablehlo.iota dim = 1 : tensor<%lldx%lldxi32>\n"
             "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
             "  %%z = stablehlo.constant dense<0> : tensor<i32>\n"
             "  %%v, %%k = stablehlo.reduce(%%x init: %%ninf), (%%i init: %%z) across dimensions = [1] :"
             " (tensor<%lldx%lldxf32>, tensor<%lldx%lldxi32>, tensor<f32>, tensor<i32>) -> (tensor<%lldxf32>, tensor<%lldxi32>)\n"
             "   reducer(%%a: tensor<f32>, %%c: tensor<f32>) (%%b: tensor<i32>, %%e: tensor<i32>) {\n"
             "    %%gt = stablehlo.compare GT, %%a, %%c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
             "    %%eq = stablehlo.compare EQ, %%a, %%c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
             "    %%lt = stablehlo.compare LT, %%b, %%e : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
             "    %%tie = stablehlo.and %%eq, %%lt : tensor<i1>\n"
             "    %%take = stablehlo.or %%gt, %%tie : tensor<i1>\n"
             "    %%v2 = stablehlo.select %%take, %%a, %%c : tensor<i1>, tensor<f32>\n"
             "    %%k2 = stablehlo.select %%take, %%b, %%e : tensor<i1>, tensor<i32>\n"
             "    stablehlo.return %%v2, %%k2 : tensor<f32>, tensor<i32>\n"
             "  }\n"
             "  func.return %%k : tensor<%lldxi32>\n}\n",
             r, c, r, r, c, r, c, r, c, r, r, r);
    return parse_text(s, d);
}

/* cumulative sum along dim 1 of a x b f32 as jax.lax.cumsum lowers it:
 * reduce_window, window b, low padding b - 1. */
static ir_module *b_cumsum(const broad_work *w, bool small, plumb_diag *d)
{
    long long r = sz(w->a, small, 16), c = sz(w->b, small, 8);
    char s[1400];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{window_dimensions = array<i64: 1, %lld>,"
             " padding = dense<[[0, 0], [%lld, 0]]> : tensor<2x2xi64>}> ({\n"
             "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "      %%s = stablehlo.add %%a, %%b : tensor<f32>\n"
             "      stablehlo.return %%s : tensor<f32>\n"
             "  }) : (tensor<%lldx%lldxf32>, tensor<f32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldxf32>\n}\n",
             r, c, r, c, c, c - 1, r, c, r, c, r, c);
    return parse_text(s, d);
}

/* causal mask of an a x a f32 matrix: two iotas, compare GE, select -inf. */
static ir_module *b_causal(const broad_work *w, bool small, plumb_diag *d)
{
    long long n = sz(w->a, small, 16);
    char s[1400];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%r = stablehlo.iota dim = 0 : tensor<%lldx%lldxi32>\n"
             "  %%c = stablehlo.iota dim = 1 : tensor<%lldx%lldxi32>\n"
             "  %%m = stablehlo.compare GE, %%r, %%c : (tensor<%lldx%lldxi32>, tensor<%lldx%lldxi32>) -> tensor<%lldx%lldxi1>\n"
             "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<%lldx%lldxf32>\n"
             "  %%o = stablehlo.select %%m, %%x, %%ninf : tensor<%lldx%lldxi1>, tensor<%lldx%lldxf32>\n"
             "  func.return %%o : tensor<%lldx%lldxf32>\n}\n",
             n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n);
    return parse_text(s, d);
}

/* reverse of the last dim of a x b f32. */
static ir_module *b_reverse(const broad_work *w, bool small, plumb_diag *d)
{
    long long r = sz(w->a, small, 16), c = sz(w->b, small, 16);
    char s[512];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%r = stablehlo.reverse %%x, dims = [1] : tensor<%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldxf32>\n}\n",
             r, c, r, c, r, c, r, c);
    return parse_text(s, d);
}

/* b scalars gathered from an a-element f32 table (numpy's take). */
static ir_module *b_take(const broad_work *w, bool small, plumb_diag *d)
{
    long long t = w->a, k = sz(w->b, small, 1024);
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%t: tensor<%lldxf32>, %%i: tensor<%lldx1xi32>) -> tensor<%lldxf32> {\n"
             "  %%g = \"stablehlo.gather\"(%%t, %%i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],"
             " start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> :"
             " (tensor<%lldxf32>, tensor<%lldx1xi32>) -> tensor<%lldxf32>\n"
             "  func.return %%g : tensor<%lldxf32>\n}\n",
             t, k, k, t, k, k, k);
    return parse_text(s, d);
}

/* sort of a f32 values (one row, total order). */
static ir_module *b_sort(const broad_work *w, bool small, plumb_diag *d)
{
    long long n = sz(w->a, small, 256);
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldxf32>) -> tensor<%lldxf32> {\n"
             "  %%r = \"stablehlo.sort\"(%%x) <{dimension = 0 : i64, is_stable = false}> ({\n"
             "    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "      %%c = stablehlo.compare LT, %%a, %%b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
             "      stablehlo.return %%c : tensor<i1>\n"
             "  }) : (tensor<%lldxf32>) -> tensor<%lldxf32>\n"
             "  func.return %%r : tensor<%lldxf32>\n}\n",
             n, n, n, n, n);
    return parse_text(s, d);
}

/* sum over dim 0 of a x b x c f32 (a short leading dim: columns of b*c). */
static ir_module *b_sum_dim0(const broad_work *w, bool small, plumb_diag *d)
{
    long long a = w->a, b = sz(w->b, small, 16), c = sz(w->c, small, 16);
    char s[1024];
    snprintf(s, sizeof s,
             "func.func @main(%%x: tensor<%lldx%lldx%lldxf32>) -> tensor<%lldx%lldxf32> {\n"
             "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "  %%r = stablehlo.reduce(%%x init: %%z) applies stablehlo.add across dimensions = [0] :"
             " (tensor<%lldx%lldx%lldxf32>, tensor<f32>) -> tensor<%lldx%lldxf32>\n"
             "  func.return %%r : tensor<%lldx%lldxf32>\n}\n",
             a, b, c, b, c, a, b, c, b, c, b, c);
    return parse_text(s, d);
}

/* ---- the workloads ----------------------------------------------------------- */

#define NP_RNG "r = np.random.default_rng(1)\n"
/* Max-pool of an NHWC f32 tensor a x b x b x c: window 2x2 stride 2 (d = 2)
 * or 3x3 stride 2 padding 1 (d = 3), as CNNs pool (reduce_window,
 * docs/spec/window.md). */
static ir_module *b_maxpool(const broad_work *w, bool small, plumb_diag *d)
{
    int64_t n = sz(w->a, small, 16), h = small ? 16 : w->b, c = sz(w->c, small, 8);
    int64_t o = w->d == 2 ? h / 2 : (h - 1) / 2 + 1;
    const char *attrs = w->d == 2 ? "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"
                                  : "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, "
                                    "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>";
    char src[1400];
    snprintf(src, sizeof src,
             "func.func @main(%%x: tensor<%lldx%lldx%lldx%lldxf32>) -> tensor<%lldx%lldx%lldx%lldxf32> {\n"
             "  %%c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "    %%m = stablehlo.maximum %%a, %%b : tensor<f32>\n"
             "    stablehlo.return %%m : tensor<f32>\n"
             "  }) : (tensor<%lldx%lldx%lldx%lldxf32>, tensor<f32>) -> tensor<%lldx%lldx%lldx%lldxf32>\n"
             "  return %%r : tensor<%lldx%lldx%lldx%lldxf32>\n}\n",
             (long long)n, (long long)h, (long long)h, (long long)c, (long long)n, (long long)o, (long long)o,
             (long long)c, attrs, (long long)n, (long long)h, (long long)h, (long long)c, (long long)n, (long long)o,
             (long long)o, (long long)c, (long long)n, (long long)o, (long long)o, (long long)c);
    return parse_text(src, d);
}

/* b_maxpool's pools on the channels-first (NCHW) layout, a x c x b x b: the
 * window on the two innermost dimensions, so a result row is a stride-2
 * walk along W (the strided row kernels, docs/runtime-window.md). */
static ir_module *b_maxpool_nchw(const broad_work *w, bool small, plumb_diag *d)
{
    long long n = sz(w->a, small, 16), h = small ? 16 : w->b, c = sz(w->c, small, 8);
    long long o = w->d == 2 ? h / 2 : (h - 1) / 2 + 1;
    const char *attrs = w->d == 2 ? "window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>"
                                  : "padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, "
                                    "window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>";
    char it[96], ot[96], src[1400];
    snprintf(it, sizeof it, "tensor<%lldx%lldx%lldx%lldxf32>", n, c, h, h);
    snprintf(ot, sizeof ot, "tensor<%lldx%lldx%lldx%lldxf32>", n, c, o, o);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s) -> %s {\n"
             "  %%c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
             "  %%r = \"stablehlo.reduce_window\"(%%x, %%c) <{%s}> ({\n"
             "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "    %%m = stablehlo.maximum %%a, %%b : tensor<f32>\n"
             "    stablehlo.return %%m : tensor<f32>\n"
             "  }) : (%s, tensor<f32>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, ot, attrs, it, ot, ot);
    return parse_text(src, d);
}

/* The max-pool gradient of b_maxpool's 2x2 stride 2 case: select_and_scatter
 * routing each of the a x b/2 x b/2 x c source values to its window's first
 * maximum (select GE, scatter add, init 0), as a CNN's backward pass does. */
static ir_module *b_maxpool_grad(const broad_work *w, bool small, plumb_diag *d)
{
    int64_t n = sz(w->a, small, 16), h = small ? 16 : w->b, c = sz(w->c, small, 8), o = h / 2;
    char it[96], ot[96], src[1600];
    snprintf(it, sizeof it, "tensor<%lldx%lldx%lldx%lldxf32>", (long long)n, (long long)h, (long long)h, (long long)c);
    snprintf(ot, sizeof ot, "tensor<%lldx%lldx%lldx%lldxf32>", (long long)n, (long long)o, (long long)o, (long long)c);
    snprintf(src, sizeof src,
             "func.func @main(%%x: %s, %%s: %s) -> %s {\n"
             "  %%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "  %%r = \"stablehlo.select_and_scatter\"(%%x, %%s, %%c) <{window_dimensions = array<i64: 1, 2, 2, 1>, "
             "window_strides = array<i64: 1, 2, 2, 1>}> ({\n"
             "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "    %%p = stablehlo.compare GE, %%a, %%b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
             "    stablehlo.return %%p : tensor<i1>\n"
             "  }, {\n"
             "  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):\n"
             "    %%m = stablehlo.add %%a, %%b : tensor<f32>\n"
             "    stablehlo.return %%m : tensor<f32>\n"
             "  }) : (%s, %s, tensor<f32>) -> %s\n"
             "  return %%r : %s\n}\n",
             it, ot, it, it, ot, it, it);
    return parse_text(src, d);
}

#define NP_F(shape, dt) "r.uniform(-2, 2, " shape ").astype(np." dt ")"

static const char np_softmax[] =
    "e = np.exp(x - x.max(axis=1, keepdims=True)); o = e / e.sum(axis=1, keepdims=True)";
static const char np_layer_norm[] =
    "m = x.mean(axis=1, keepdims=True); c = x - m; o = c / np.sqrt((c * c).mean(axis=1, keepdims=True) + 1e-5)";

static const broad_work works[] = {
    {"gather_embed", "gather 8192 rows of 512 from a 50000x512 f32 table", FLOOR_STREAM, true, 50000, b_gather,
     50000, 512, 8192, 0, PLUMB_F32, NP_RNG "t = " NP_F("(50000, 512)", "float32") "; i = r.integers(0, 50000, 8192)",
     "o = t[i]", NULL},
    {"scatter_add", "scatter-add 8192 rows of 512 into an 8192x512 f32 table (targets in 2048 rows)", FLOOR_STREAM,
     false, 2048, b_scatter_add, 8192, 512, 8192, 0, PLUMB_F32,
     NP_RNG "t = " NP_F("(8192, 512)", "float32") "; u = " NP_F("(8192, 512)", "float32")
            "; i = r.integers(0, 2048, 8192)",
     "o = t.copy(); np.add.at(o, i, u)", NULL},
    {"reduce_col_max", "max over dimension 0 of 4096x4096 f32 (a column reduction)", FLOOR_STREAM, true, 0,
     b_reduce_max0, 4096, 4096, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(4096, 4096)", "float32"), "o = x.max(axis=0)",
     NULL},
    {"reduce_row_sum", "sum over dimension 1 of 4096x4096 f32 (a row reduction)", FLOOR_STREAM, false, 0,
     b_reduce_sum1, 4096, 4096, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(4096, 4096)", "float32"), "o = x.sum(axis=1)",
     NULL},
    {"transpose_2d", "transpose [1, 0] of 4096x4096 f32", FLOOR_STREAM, true, 0, b_transpose, 2, 4096, 64, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("(4096, 4096)", "float32"), "o = np.ascontiguousarray(x.T)", NULL},
    {"transpose_3d", "transpose [2, 0, 1] of 256x256x256 f32", FLOOR_STREAM, true, 0, b_transpose, 3, 256, 16, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("(256, 256, 256)", "float32"), "o = np.ascontiguousarray(x.transpose(2, 0, 1))",
     NULL},
    {"transpose_4d", "transpose [0, 2, 1, 3] of 64x64x64x64 f32", FLOOR_STREAM, true, 0, b_transpose, 4, 64, 8, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("(64, 64, 64, 64)", "float32"),
     "o = np.ascontiguousarray(x.transpose(0, 2, 1, 3))", NULL},
    {"softmax_f32", "softmax over rows of 4096x1024 f32", FLOOR_STREAM, false, 0, b_softmax, 4096, 1024, 0, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("(4096, 1024)", "float32"), np_softmax, NULL},
    {"softmax_f16", "softmax over rows of 4096x1024 f16", FLOOR_STREAM, false, 0, b_softmax, 4096, 1024, 0, 0,
     PLUMB_F16, NP_RNG "x = " NP_F("(4096, 1024)", "float16"), np_softmax, NULL},
    {"softmax_bf16", "softmax over rows of 4096x1024 bf16", FLOOR_STREAM, false, 0, b_softmax, 4096, 1024, 0, 0,
     PLUMB_BF16, NP_RNG "x = " NP_F("(4096, 1024)", "float32"), np_softmax, "numpy has no bf16: its f32 time"},
    {"layer_norm_f32", "layer_norm over rows of 4096x1024 f32 (no scale, no shift)", FLOOR_STREAM, false, 0,
     b_layer_norm, 4096, 1024, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(4096, 1024)", "float32"), np_layer_norm, NULL},
    {"layer_norm_f16", "layer_norm over rows of 4096x1024 f16", FLOOR_STREAM, false, 0, b_layer_norm, 4096, 1024, 0,
     0, PLUMB_F16, NP_RNG "x = " NP_F("(4096, 1024)", "float16"), np_layer_norm, NULL},
    {"layer_norm_bf16", "layer_norm over rows of 4096x1024 bf16", FLOOR_STREAM, false, 0, b_layer_norm, 4096, 1024,
     0, 0, PLUMB_BF16, NP_RNG "x = " NP_F("(4096, 1024)", "float32"), np_layer_norm,
     "numpy has no bf16: its f32 time"},
    {"exp_f32", "exponential of 16M f32", FLOOR_STREAM, false, 0, b_exp, 16 << 20, 0, 0, 0, PLUMB_F32,
     NP_RNG "x = " NP_F("16 << 20", "float32"), "o = np.exp(x)", NULL},
    {"exp_f16", "exponential of 16M f16", FLOOR_STREAM, false, 0, b_exp, 16 << 20, 0, 0, 0, PLUMB_F16,
     NP_RNG "x = " NP_F("16 << 20", "float16"), "o = np.exp(x)", NULL},
    {"exp_bf16", "exponential of 16M bf16", FLOOR_STREAM, false, 0, b_exp, 16 << 20, 0, 0, 0, PLUMB_BF16,
     NP_RNG "x = " NP_F("16 << 20", "float32"), "o = np.exp(x)", "numpy has no bf16: its f32 time"},
    {"exp_f64", "exponential of 8M f64", FLOOR_STREAM, false, 0, b_exp, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.exp(x)", NULL},
    {"log_f64", "log of |x|, 8M f64", FLOOR_STREAM, false, 0, b_log, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.log(np.abs(x))", NULL},
    {"logistic_f64", "logistic of 8M f64", FLOOR_STREAM, false, 0, b_logistic, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = 1 / (1 + np.exp(-x))", NULL},
    {"tanh_f64", "tanh of 8M f64", FLOOR_STREAM, false, 0, b_tanh, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.tanh(x)", NULL},
    {"expm1_f64", "expm1 of 8M f64", FLOOR_STREAM, false, 0, b_expm1, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.expm1(x)", NULL},
    {"log1p_f64", "log1p of |x|, 8M f64", FLOOR_STREAM, false, 0, b_log1p, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.log1p(np.abs(x))", NULL},
    {"sine_f64", "sine of 8M f64", FLOOR_STREAM, false, 0, b_sine, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.sin(x)", NULL},
    {"cosine_f64", "cosine of 8M f64", FLOOR_STREAM, false, 0, b_cosine, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64"), "o = np.cos(x)", NULL},
    {"remainder_f64", "remainder of 8M f64 pairs", FLOOR_STREAM, true, 0, b_remainder, 8 << 20, 0, 0, 0,
     PLUMB_F64, NP_RNG "x = " NP_F("8 << 20", "float64") "; y = " NP_F("8 << 20", "float64"), "o = np.fmod(x, y)",
     NULL},
    {"power_f64", "power(|x|, y) of 8M f64 pairs", FLOOR_STREAM, false, 0, b_power, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64") "; y = " NP_F("8 << 20", "float64"), "o = np.power(np.abs(x), y)",
     NULL},
    {"atan2_f64", "atan2 of 8M f64 pairs", FLOOR_STREAM, false, 0, b_atan2, 8 << 20, 0, 0, 0, PLUMB_F64,
     NP_RNG "x = " NP_F("8 << 20", "float64") "; y = " NP_F("8 << 20", "float64"), "o = np.arctan2(x, y)", NULL},
    {"remainder_f32", "remainder of 16M f32 pairs", FLOOR_STREAM, true, 0, b_remainder, 16 << 20, 0, 0, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("16 << 20", "float32") "; y = " NP_F("16 << 20", "float32"), "o = np.fmod(x, y)",
     NULL},
    {"int_chain", "(a * b + c) >> 3 on 16M i32", FLOOR_STREAM, true, 0, b_int_chain, 16 << 20, 0, 0, 0, PLUMB_I32,
     NP_RNG "a = r.integers(-1000, 1000, 16 << 20, dtype=np.int32); b = r.integers(-1000, 1000, 16 << 20, "
            "dtype=np.int32); c = r.integers(-1000, 1000, 16 << 20, dtype=np.int32)",
     "o = (a * b + c) >> 3", NULL},
    {"gelu_erf", "gelu, erf form, on 16M f32", FLOOR_STREAM, false, 0, b_gelu, 16 << 20, 0, 0, 0, PLUMB_F32, NULL,
     NULL, "numpy has no erf (scipy does)"},
    {"batched_gemm", "64 x (128x64 . 64x128) f32", FLOOR_GEMM, false, 0, b_bgemm, 64, 128, 64, 0, PLUMB_F32,
     NP_RNG "x = " NP_F("(64, 128, 64)", "float32") "; y = " NP_F("(64, 64, 128)", "float32"), "o = np.matmul(x, y)",
     NULL},
    {"maxpool_2x2", "max-pool 2x2 stride 2 of NHWC 32x112x112x64 f32 (reduce_window)", FLOOR_STREAM, true, 0,
     b_maxpool, 32, 112, 64, 2, PLUMB_F32, NP_RNG "x = " NP_F("(32, 112, 112, 64)", "float32"),
     "o = x.reshape(32, 56, 2, 56, 2, 64).max(axis=(2, 4))", NULL},
    {"maxpool_3x3s2", "max-pool 3x3 stride 2 padding 1 of NHWC 32x112x112x64 f32 (reduce_window)", FLOOR_STREAM, true,
     0, b_maxpool, 32, 112, 64, 3, PLUMB_F32, NP_RNG "x = " NP_F("(32, 112, 112, 64)", "float32"),
     "p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-np.inf); "
     "o = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(1, 2))[:, ::2, ::2].max(axis=(-2, -1))", NULL},
    {"maxpool_2x2_nchw", "max-pool 2x2 stride 2 of NCHW 32x64x112x112 f32 (reduce_window)", FLOOR_STREAM, true, 0,
     b_maxpool_nchw, 32, 112, 64, 2, PLUMB_F32, NP_RNG "x = " NP_F("(32, 64, 112, 112)", "float32"),
     "o = x.reshape(32, 64, 56, 2, 56, 2).max(axis=(3, 5))", NULL},
    {"maxpool_3x3s2_nchw", "max-pool 3x3 stride 2 padding 1 of NCHW 32x64x112x112 f32 (reduce_window)", FLOOR_STREAM,
     true, 0, b_maxpool_nchw, 32, 112, 64, 3, PLUMB_F32, NP_RNG "x = " NP_F("(32, 64, 112, 112)", "float32"),
     "p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf); "
     "o = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-2, -1))", NULL},
    {"maxpool_grad_2x2", "max-pool 2x2 stride 2 gradient of NHWC 32x112x112x64 f32 (select_and_scatter)",
     FLOOR_STREAM, true, 0, b_maxpool_grad, 32, 112, 64, 2, PLUMB_F32,
     NP_RNG "x = " NP_F("(32, 112, 112, 64)", "float32") "; s = " NP_F("(32, 56, 56, 64)", "float32"),
     "v = x.reshape(32, 56, 2, 56, 2, 64); "
     "o = ((v == v.max(axis=(2, 4), keepdims=True)) * s[:, :, None, :, None, :]).reshape(32, 112, 112, 64)",
     "numpy routes to every tied maximum (random data has no ties)"},
    {"concat_slice_pad", "concatenate 2 x 2048x4096 f32, slice off the ring, pad it back", FLOOR_STREAM, true, 0,
     b_concat_slice_pad, 2048, 4096, 0, 0, PLUMB_F32,
     NP_RNG "x = " NP_F("(2048, 4096)", "float32") "; y = " NP_F("(2048, 4096)", "float32"),
     "o = np.pad(np.concatenate([x, y])[1:-1, 1:-1], 1)", NULL},
    /* the probe's (docs/bench.md "Probe: workloads never tuned on") */
    {"argmax_rows", "argmax over dimension 1 of 4096x1024 f32 (reduce of value, index pairs)", FLOOR_STREAM, true, 0,
     b_argmax, 4096, 1024, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(4096, 1024)", "float32"), "o = x.argmax(axis=1)",
     NULL},
    {"cumsum_rows", "cumulative sum along dimension 1 of 1024x1024 f32 (reduce_window, window 1024, low padding 1023)",
     FLOOR_STREAM, false, 0, b_cumsum, 1024, 1024, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(1024, 1024)", "float32"),
     "o = np.cumsum(x, axis=1)", "numpy adds in f32; plumb in double, rounded once per result"},
    {"causal_mask", "causal mask of 4096x4096 f32 (two iotas, compare GE, select -inf)", FLOOR_STREAM, true, 0,
     b_causal, 4096, 0, 0, 0, PLUMB_F32, NP_RNG "x = " NP_F("(4096, 4096)", "float32"),
     "o = np.where(np.tri(4096, 4096, dtype=bool), x, np.float32(-np.inf))", NULL},
    {"reverse_cols", "reverse of dimension 1 of 4096x4096 f32", FLOOR_STREAM, true, 0, b_reverse, 4096, 4096, 0, 0,
     PLUMB_F32, NP_RNG "x = " NP_F("(4096, 4096)", "float32"), "o = x[:, ::-1].copy()", NULL},
    {"take_scalars", "gather 4M scalars from a 1M-element f32 table (numpy take)", FLOOR_STREAM, true, 1 << 20, b_take,
     1 << 20, 4 << 20, 0, 0, PLUMB_F32,
     NP_RNG "t = " NP_F("(1 << 20,)", "float32") "; i = r.integers(0, 1 << 20, (4 << 20, 1)).astype(np.int32)",
     "o = np.take(t, i[:, 0])", NULL},
    {"sort_1m", "sort of 1M f32 (total order)", FLOOR_STREAM, true, 0, b_sort, 1 << 20, 0, 0, 0, PLUMB_F32,
     NP_RNG "x = " NP_F("(1 << 20,)", "float32"), "o = np.sort(x)", NULL},
    {"reduce_dim0_r3", "sum over dimension 0 of 64x512x512 f32 (64 rows of 262144 columns)", FLOOR_STREAM, false, 0,
     b_sum_dim0, 64, 512, 512, 0, PLUMB_F32, NP_RNG "x = " NP_F("(64, 512, 512)", "float32"), "o = x.sum(axis=0)",
     "numpy adds in f32 (pairwise); plumb in double, rounded once"},
};
#define N_WORKS (sizeof works / sizeof works[0])

/* ---- inputs, validation, timing ------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Floats uniform in [-2, 2) rounded to the type; i32 in [0, limit) or
 * [-1000, 1000). */
static plumb_tensor **make_inputs(const broad_work *w, const ir_func *f, uint64_t seed, plumb_diag *d)
{
    uint32_t n = f->body.n_args;
    plumb_tensor **ins = calloc(n ? n : 1, sizeof *ins);
    if (!ins)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const ir_type *t = &f->body.args[i]->type;
        if (!(ins[i] = plumb_tensor_new(t->dtype, t->rank, t->dims, 0, d)))
            goto fail;
        uint64_t cnt = plumb_tensor_numel(ins[i]), s = seed * 1000003u + i;
        for (uint64_t k = 0; k < cnt; k++) {
            uint64_t r = splitmix(&s);
            double u = (double)(r >> 11) * 0x1p-53;
            switch (t->dtype) {
            case PLUMB_F32: ((float *)ins[i]->data)[k] = (float)(4 * u - 2); break;
            case PLUMB_F64: ((double *)ins[i]->data)[k] = 4 * u - 2; break;
            case PLUMB_F16: ((uint16_t *)ins[i]->data)[k] = plumb_f64_to_f16(4 * u - 2); break;
            case PLUMB_BF16: ((uint16_t *)ins[i]->data)[k] = plumb_f64_to_bf16(4 * u - 2); break;
            case PLUMB_I32:
                ((int32_t *)ins[i]->data)[k] = w->index_limit ? (int32_t)(r % (uint64_t)w->index_limit)
                                                              : (int32_t)(r % 2000) - 1000;
                break;
            default: break;
            }
        }
    }
    return ins;
fail:
    for (uint32_t i = 0; i < n; i++)
        plumb_tensor_free(ins[i]);
    free(ins);
    return NULL;
}

static void free_inputs(plumb_tensor **ins, uint32_t n)
{
    for (uint32_t i = 0; ins && i < n; i++)
        plumb_tensor_free(ins[i]);
    free(ins);
}

/* The small instance on the reference and the runtime: exact workloads bit
 * for bit; float ones within 16 units of the type's precision relative to
 * the reference's value plus the same absolute amount (the suite's
 * tolerance for composites, which have no per-op bound; docs/bench.md). */
static bool validate(const broad_work *w, plumb_runtime *rt, char *why, size_t cap)
{
    plumb_diag d = {0};
    ir_module *m = w->build(w, true, &d);
    if (!m) {
        snprintf(why, cap, "building the validation program: %.200s", d.msg);
        return false;
    }
    const ir_func *f = ir_module_find_func(m, "main");
    plumb_tensor **ins = make_inputs(w, f, 7, &d);
    plumb_ref_options ro = {.struct_size = sizeof ro};
    plumb_ref_result ref = {0};
    plumb_tensor *got = NULL;
    bool ok = false;
    if (!ins || !plumb_ref_run(m, "main", ins, f->body.n_args, &ro, &ref, &d)) {
        snprintf(why, cap, "reference: %.200s", d.msg);
        goto out;
    }
    plumb_executable *ex = plumb_runtime_compile(rt, m, "main", &d);
    if (!ex || !plumb_executable_run(ex, ins, f->body.n_args, &got, 1, NULL, &d)) {
        snprintf(why, cap, "runtime: %.200s", d.msg);
        goto out;
    }
    const plumb_tensor *want = ref.outputs[0];
    uint64_t n = plumb_tensor_numel(want);
    double tol = ldexp(16.0, -(int)plumb_dtype_get(want->dtype)->mant_bits - 1);
    /* A contraction of K products, each at most 4 in magnitude (inputs in
     * [-2, 2)), accumulated in f32: |error| <= K u (4 K), u = 2^-24 (the
     * data bound of docs/conformance.md with the sum of |terms| at its
     * largest). */
    double tol_abs = w->floor == FLOOR_GEMM ? (double)w->c * 0x1p-24 * 4.0 * (double)w->c : tol;
    for (uint64_t i = 0; i < n; i++) {
        bool same;
        if (w->exact || !plumb_dtype_is_float(want->dtype)) {
            same = plumb_load_bits(want->dtype, want->data, (size_t)i) == plumb_load_bits(got->dtype, got->data, (size_t)i);
        } else {
            double a = plumb_load_f64(want->dtype, want->data, (size_t)i), b = plumb_load_f64(got->dtype, got->data, (size_t)i);
            same = fabs(a - b) <= tol * fabs(a) + tol_abs || (isnan(a) && isnan(b));
        }
        if (!same) {
            snprintf(why, cap, "element %llu: runtime %.9g, reference %.9g", (unsigned long long)i,
                     plumb_load_f64(got->dtype, got->data, (size_t)i), plumb_load_f64(want->dtype, want->data, (size_t)i));
            goto out;
        }
    }
    ok = true;
out:
    plumb_tensor_free(got);
    plumb_ref_result_free(&ref);
    free_inputs(ins, f ? f->body.n_args : 0);
    ir_module_free(m);
    return ok;
}

typedef struct broad_row {
    bool valid, timed;
    char why[256];
    double compile_s, median_s, best_s;
    int runs;
    double bytes, flops;
    double numpy_s;          /* NAN = not measured */
} broad_row;

/* Compile, then runs into kept results until about 0.5 s (at least 5). */
static bool time_runtime(const broad_work *w, plumb_runtime *rt, broad_row *row)
{
    plumb_diag d = {0};
    ir_module *m = w->build(w, false, &d);
    if (!m) {
        snprintf(row->why, sizeof row->why, "building: %.200s", d.msg);
        return false;
    }
    const ir_func *f = ir_module_find_func(m, "main");
    uint32_t n_in = f->body.n_args;
    plumb_tensor **ins = make_inputs(w, f, 1, &d);
    plumb_tensor *out = NULL;
    double *t = NULL;
    bool ok = false;
    double t0 = bench_now();
    plumb_executable *ex = ins ? plumb_runtime_compile(rt, m, "main", &d) : NULL;
    row->compile_s = bench_now() - t0;
    if (!ex || !plumb_executable_run(ex, ins, n_in, &out, 1, NULL, &d)) {
        snprintf(row->why, sizeof row->why, "runtime: %.200s", d.msg);
        goto out;
    }
    row->bytes = (double)out->nbytes;
    for (uint32_t i = 0; i < n_in; i++)
        row->bytes += (double)ins[i]->nbytes;
    if (strcmp(w->name, "gather_embed") == 0)   /* the rows read, not the whole table */
        row->bytes = 2.0 * (double)out->nbytes + (double)ins[1]->nbytes;
    if (w->floor == FLOOR_GEMM)
        row->flops = 2.0 * (double)w->a * (double)w->b * (double)w->b * (double)w->c;
    enum { MAX_RUNS = 200 };
    t = calloc(MAX_RUNS, sizeof *t);
    if (!t)
        goto out;
    double start = bench_now();
    int r = 0;
    while (r < MAX_RUNS && (r < 5 || bench_now() - start < 0.5)) {
        double s = bench_now();
        if (!plumb_executable_run_into(ex, ins, n_in, &out, 1, NULL, &d)) {
            snprintf(row->why, sizeof row->why, "runtime: %.200s", d.msg);
            goto out;
        }
        t[r++] = bench_now() - s;
    }
    bench_times bt = bench_summarize(t, r);
    row->median_s = bt.median;
    row->best_s = bt.best;
    row->runs = r;
    ok = true;
out:
    free(t);
    plumb_tensor_free(out);
    free_inputs(ins, n_in);
    ir_module_free(m);
    return ok;
}

/* numpy: one /usr/bin/python3 process times every workload that has numpy
 * code (median of runs filling about 0.5 s, at least 3), one thread
 * (OPENBLAS_NUM_THREADS and OMP_NUM_THREADS as the runtime's), and prints
 * "NAME SECONDS" lines. False when python3 or numpy is missing. */
static bool time_numpy(unsigned threads, broad_row *rows, const bool *selected)
{
    char path[] = "/tmp/plumb-broad-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return false;
    }
    fprintf(f, "import time, sys\nimport numpy as np\n"
               "def bench(name, setup, stmt):\n"
               "    g = {'np': np}\n    exec(setup, g)\n    c = compile(stmt, name, 'exec')\n    exec(c, g)\n"
               "    ts = []\n    start = time.perf_counter()\n"
               "    while len(ts) < 3 or (time.perf_counter() - start < 0.5 and len(ts) < 200):\n"
               "        s = time.perf_counter(); exec(c, g); ts.append(time.perf_counter() - s)\n"
               "    ts.sort(); n = len(ts)\n"
               "    print(name, ts[n // 2] if n %% 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2]), flush=True)\n");
    for (size_t i = 0; i < N_WORKS; i++) {
        if (!selected[i] || !works[i].np_stmt)
            continue;
        fprintf(f, "bench('%s', '''%s''', '''%s''')\n", works[i].name, works[i].np_setup, works[i].np_stmt);
    }
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "OPENBLAS_NUM_THREADS=%u OMP_NUM_THREADS=%u MKL_NUM_THREADS=%u /usr/bin/python3 %s 2>/dev/null", threads,
             threads, threads, path);
    FILE *p = popen(cmd, "r");
    bool any = false;
    if (p) {
        char name[64];
        double s;
        while (fscanf(p, "%63s %lf", name, &s) == 2) {
            for (size_t i = 0; i < N_WORKS; i++)
                if (strcmp(works[i].name, name) == 0) {
                    rows[i].numpy_s = s;
                    any = true;
                }
        }
        pclose(p);
    }
    unlink(path);
    return any;
}

/* True when name is one of the comma-separated names of list. */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

bool bench_broad_check_names(const char *only)
{
    bool ok = true;
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool known = false;
        for (size_t i = 0; i < N_WORKS && !known; i++)
            known = strlen(works[i].name) == len && memcmp(works[i].name, p, len) == 0;
        if (!known) {
            fprintf(stderr, "plumb-bench: --broad-only: no broad workload '%.*s'; the workloads are:", (int)len, p);
            for (size_t i = 0; i < N_WORKS; i++)
                fprintf(stderr, " %s", works[i].name);
            fprintf(stderr, "\n");
            ok = false;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return ok;
}

bool bench_broad_run(const bench_config *cfg, const bench_stream *st, const bench_gemm_ref *gr, const char *only,
                     const char *json_path)
{
    plumb_runtime_options ro;
    plumb_runtime_options_init(&ro);
    ro.threads = cfg->threads;
    ro.cache_dir = "";
    plumb_diag d = {0};
    plumb_runtime *rt = plumb_runtime_create(&ro, &d);
    if (!rt) {
        fprintf(stderr, "plumb-bench: runtime: %s\n", d.msg);
        return false;
    }
    broad_row rows[N_WORKS];
    bool selected[N_WORKS];
    bool all_ok = true;
    for (size_t i = 0; i < N_WORKS; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].numpy_s = NAN;
        selected[i] = !only || in_list(only, works[i].name);
        if (!selected[i])
            continue;
        fprintf(stderr, "plumb-bench: broad %s...\n", works[i].name);
        rows[i].valid = validate(&works[i], rt, rows[i].why, sizeof rows[i].why);
        if (rows[i].valid)
            rows[i].timed = time_runtime(&works[i], rt, &rows[i]);
        if (!rows[i].valid || !rows[i].timed)
            all_ok = false;
    }
    bool have_np = time_numpy(cfg->threads, rows, selected);
    double triad = cfg->threads == 1 ? st->triad_1t_gbs : st->triad_nt_gbs;
    double gemm = cfg->threads == 1 ? gr->gflops_1t : gr->gflops_nt;
    printf("broad suite, %u thread%s; floors of this run: STREAM triad %.1f GB/s, GEMM %.1f GFLOP/s (%s)\n",
           cfg->threads, cfg->threads == 1 ? "" : "s", triad, gemm, gr->source);
    if (!have_np)
        printf("numpy: not available (ci/deps.sh --bench installs Debian's python3-numpy; /usr/bin/python3)\n");
    printf("%-17s %10s %9s %8s %9s %10s %8s  %s\n", "workload", "runtime ms", "GB/s", "floor", "compile", "numpy ms",
           "vs numpy", "status");
    double log_sum = 0;
    int n_ratio = 0;
    FILE *js = json_path ? fopen(json_path, "w") : NULL;
    if (json_path && !js) {
        fprintf(stderr, "plumb-bench: cannot write %s\n", json_path);
        all_ok = false;
    }
    if (js)
        fprintf(js, "{\"suite\": \"broad\", \"threads\": %u, \"triad_gb_per_s\": %.6g, \"gemm_gflops\": %.6g, "
                    "\"numpy\": %s, \"workloads\": [",
                cfg->threads, triad, gemm, have_np ? "true" : "false");
    bool first = true;
    for (size_t i = 0; i < N_WORKS; i++) {
        if (!selected[i])
            continue;
        const broad_row *r = &rows[i];
        double gbs = r->timed ? r->bytes / r->median_s / 1e9 : NAN;
        double floor_frac = NAN;
        if (r->timed)
            floor_frac = works[i].floor == FLOOR_GEMM ? r->flops / r->median_s / 1e9 / gemm : gbs / triad;
        double ratio = r->timed && !isnan(r->numpy_s) ? r->numpy_s / r->median_s : NAN;
        if (!isnan(ratio)) {
            log_sum += log(ratio);
            n_ratio++;
        }
        char fl[32], np[32], rat[32];
        snprintf(fl, sizeof fl, isnan(floor_frac) ? "-" : "%.0f%%%s", floor_frac * 100,
                 works[i].floor == FLOOR_GEMM ? "G" : "S");
        snprintf(np, sizeof np, isnan(r->numpy_s) ? "-" : "%.3f", r->numpy_s * 1e3);
        snprintf(rat, sizeof rat, isnan(ratio) ? "-" : "%.2fx", ratio);
        printf("%-17s %10.3f %9.2f %8s %8.2fms %10s %8s  %s%s\n", works[i].name, r->timed ? r->median_s * 1e3 : NAN,
               gbs, fl, r->compile_s * 1e3, np, rat, r->valid ? (r->timed ? "ok" : "FAILED: ") : "MISMATCH: ", r->why);
        if (js) {
            fprintf(js, "%s\n  {\"name\": \"%s\", \"what\": \"%s\", \"valid\": %s, \"timed\": %s, \"floor\": \"%s\"",
                    first ? "" : ",", works[i].name, works[i].what, r->valid ? "true" : "false",
                    r->timed ? "true" : "false", works[i].floor == FLOOR_GEMM ? "gemm" : "stream");
            fprintf(js, ", \"runtime_median_seconds\": %.9g, \"runtime_best_seconds\": %.9g, \"runs\": %d, "
                        "\"compile_seconds\": %.9g, \"bytes\": %.0f",
                    r->timed ? r->median_s : 0, r->timed ? r->best_s : 0, r->runs, r->compile_s, r->bytes);
            fprintf(js, ", \"fraction_of_floor\": ");
            fprintf(js, isnan(floor_frac) ? "null" : "%.6g", floor_frac);
            fprintf(js, ", \"numpy_seconds\": ");
            fprintf(js, isnan(r->numpy_s) ? "null" : "%.9g", r->numpy_s);
            fprintf(js, ", \"speedup_vs_numpy\": ");
            fprintf(js, isnan(ratio) ? "null" : "%.6g", ratio);
            fprintf(js, ", \"numpy_note\": %s%s%s}", works[i].np_note ? "\"" : "",
                    works[i].np_note ? works[i].np_note : "null", works[i].np_note ? "\"" : "");
            first = false;
        }
    }
    for (size_t i = 0; i < N_WORKS; i++)
        if (selected[i] && works[i].np_note)
            printf("  %s: %s\n", works[i].name, works[i].np_note);
    double geo = n_ratio ? exp(log_sum / n_ratio) : NAN;
    printf("geometric mean vs numpy over %d workloads: %.2fx (target >= 2x; each >= 1x)\n", n_ratio, geo);
    printf("floor: S = fraction of this run's STREAM triad (target >= 50%%), G = of its GEMM rate\n");
    if (js) {
        fprintf(js, "\n], \"geomean_vs_numpy\": ");
        fprintf(js, isnan(geo) ? "null" : "%.6g", geo);
        fprintf(js, ", \"geomean_count\": %d}\n", n_ratio);
        fclose(js);
    }
    plumb_runtime_destroy(rt);
    return all_ok;
}
