/* Internal interface of the conformance machinery: case generators and the
 * agreement checker (conformance/gen.c, conformance/check.c), used by the
 * certification runner (conformance/runner.c) and `plumb exhaustive`. */
#ifndef PLUMB_CONF_H
#define PLUMB_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

typedef enum conf_suite { CONF_SUITE_QUICK, CONF_SUITE_FULL } conf_suite;

/* One case: a small program whose @main takes the inputs, and the inputs.
 * Its id is stable for a (suite, seed): "<op>/<dtype>/<shape class>/<value class>/<n>". */
typedef struct conf_case {
    char id[128];
    plumb_opcode op;            /* the op under test */
    plumb_dtype dtype;          /* its primary element type */
    const char *shape_class;    /* "scalar", "empty", "one", "odd", "wide", "broadcast", "dimnums", ... */
    const char *value_class;    /* "special", "subnormal", "boundary", "normal", "uniform", "loguniform", "exhaustive", ... */
    const char *form;           /* attribute form of a "forms" case ("perm_2_0_1", "scalar_lo", ...; id
                                 * "<op>/<dtype>/<shape>/<value>/forms/<form>"), NULL for other families */
    char *program;              /* StableHLO text (owned by the case list's arena) */
    plumb_tensor **inputs;      /* owned by the case list */
    uint32_t n_inputs;
    /* A case with polymorphic (`?`) types ("dyn_*" shape classes and the
     * dynamic ops): run only on backends that claim polymorphic shapes,
     * reported as unsupported on the others. */
    bool polymorphic;
    /* The program the reference runs for the expected results, when it is
     * not `program`: a polymorphic case of an op with a static form is
     * checked against that static program at the case's size (every `?`
     * replaced by it), so its results must be those of a static compile;
     * NULL = program itself (the dynamic ops, run by the reference as
     * written). Owned by the case list. */
    char *check_program;
} conf_case;

typedef struct conf_cases {
    plumb_arena *arena;         /* owns programs and the arrays */
    conf_case *v;
    uint32_t n;
    uint32_t cap;
} conf_cases;

void conf_cases_free(conf_cases *cs);

/* Generates the cases of one op (every accepted element type × shape class ×
 * value class) deterministically from seed; shard (i of n) keeps every n-th
 * case. Random values come from GSL's seeded generators. */
bool conf_generate(plumb_opcode op, conf_suite suite, uint64_t seed,
                   uint32_t shard_index, uint32_t shard_count, conf_cases *out, plumb_diag *d);

/* The number of cases conf_generate must produce for op in suite before
 * sharding (the manifest): a run that executed fewer fails. */
uint32_t conf_manifest_count(plumb_opcode op, conf_suite suite);

/* Polymorphic cases ("dyn_*" shape classes, docs/conformance.md): a `?`
 * dimension bounded by CONF_POLY_BOUND, at the sizes CONF_POLY_SIZES (0, 1,
 * odd, the bound), named "dyn_0", "dyn_1", "dyn_odd" and "dyn_bound". */
#define CONF_POLY_BOUND 16
#define CONF_POLY_N_SIZES 4
extern const int64_t conf_poly_sizes[CONF_POLY_N_SIZES];
extern const char *const conf_poly_classes[CONF_POLY_N_SIZES];
/* The program text with every `?` replaced by size and every
 * #stablehlo.bounds<...> encoding dropped (arena-allocated; NULL when out
 * of memory): the static form of a program whose `?` all stand for one size. */
char *conf_poly_concretize(plumb_arena *a, const char *program, int64_t size);

/* The attribute forms ("perm_2_0_1", "dims_0_2", "n3_dim1", "lt_totalorder",
 * "scalar_lo", ...) conf_generate promises for op in element type t, the
 * same in both suites (their cases are counted in conf_manifest_count).
 * Returns the count; names beyond cap are not written; out may be NULL. */
#define CONF_FORM_NAME 40
uint32_t conf_manifest_forms(plumb_opcode op, plumb_dtype t, char (*out)[CONF_FORM_NAME], uint32_t cap);

/* Operand-crossed dots (conformance/gen.c, docs/conformance.md): for dot
 * and dot_general in every float type, x entirely from class [p][0] and y
 * entirely from class [p][1] ("subnormal", "large", "normal", "special"),
 * ids "<op>/<type>/<shape>/opcross/<A>_<B>", shapes "odd" (both ops) and
 * "dimnums" (dot_general, batched). "large" values lie in
 * [2^E, 2^(E+1)) with E = conf_opcross_large_exp(t). */
#define CONF_OPCROSS_PAIRS 6
extern const char *const conf_opcross_pairs[CONF_OPCROSS_PAIRS][2];
int conf_opcross_large_exp(plumb_dtype t);

/* What the backend declared, as far as checking is concerned. */
typedef struct conf_check_opts {
    bool flushes_subnormals;    /* declared flush-to-zero: subnormal slack allowed */
    bool preserves_nan_payload; /* if false, NaN payloads of data-movement ops are not compared */
    plumb_dtype accum[PLUMB_DTYPE_COUNT]; /* declared accumulator type per float input type */
} conf_check_opts;

/* The verdict on one case. budget_used is the worst error as a fraction of
 * the allowed bound (0 = exact; > 1 fails); for DATA-class ops the TOSA-style
 * statistics over the tensor are also given. */
typedef struct conf_result {
    bool pass;
    double budget_used;
    uint32_t worst_output;      /* which result held the worst element */
    uint64_t worst_index;       /* its flat index */
    double mse_per_bound;       /* mean squared error / bound^2 (DATA class) */
    double mean_signed_per_bound; /* mean signed error / bound (DATA class) */
    char reason[512];           /* why it failed: element, got, want, error, bound */
} conf_result;

/* Checks a backend's outputs for case c against the reference (which the
 * checker runs itself: correctly rounded results, exact or extra-precise
 * accumulations, and the data needed for the bounds). */
bool conf_check_case(const conf_case *c, plumb_tensor *const *got, uint32_t n_got,
                     const conf_check_opts *o, conf_result *r, plumb_diag *d);

/* ---- additions (engineer "conf") ------------------------------------------ */

/* budget_used of an element that had to match exactly and did not (exact
 * class, special values, wrong shape): finite so reports stay valid JSON. */
#define CONF_BUDGET_MISMATCH 1e30

/* Budget-used histograms (docs/certify.md, docs/golden.md): how the error
 * of an op in one element type is distributed over its cases, as a
 * fraction of each case's bound (error in ULP / ulp(n) for ULP-class ops,
 * error / data-dependent bound for sums and dots; 0 = exact, > 1 fails),
 * so "budget used" is a distribution and not one worst number. Filled by
 * `plumb certify` per op x type over the cases that were checked (status
 * pass or fail: a backend error, crash or timeout measured no error) and by
 * `plumb golden check` per file and per op x type over the stored records.
 * Bins: [0] exactly 0; [k] for k = 1..5 is (edges[k-1], edges[k]], i.e.
 * (0, 1/16], (1/16, 1/8], (1/8, 1/4], (1/4, 1/2], (1/2, 1]; [6] over 1 (a
 * failure, CONF_BUDGET_MISMATCH and NaN included). The quantiles are
 * nearest-rank (the smallest budget with at least q*n budgets at or below
 * it); all zero when n is 0. Reports (JSON, HTML) plot bins and quantiles. */
#define CONF_HIST_BINS 7
extern const double conf_hist_edges[CONF_HIST_BINS - 1];   /* 0, 1/16, 1/8, 1/4, 1/2, 1 */
typedef struct conf_budget_hist {
    uint32_t n;                     /* cases (records) counted */
    uint32_t bins[CONF_HIST_BINS];
    double p50, p90, p99, worst;    /* quantiles and maximum of budget used */
} conf_budget_hist;
/* The bin of one budget. */
uint32_t conf_hist_bin(double budget);
/* Fills h from n budgets; sorts budgets in place (ascending). */
void conf_budget_hist_fill(double *budgets, uint32_t n, conf_budget_hist *h);
/* The histogram of op in element type t over a certification's checked
 * cases (run->cases; also a report read back or merged). False only when
 * out of memory; h->n is 0 when no case of op x t was checked. */
struct conf_run;
bool conf_run_budget_hist(const struct conf_run *run, plumb_opcode op, plumb_dtype t, conf_budget_hist *h);
/* JSON of h: {"cases": n, "bins": [7 counts], "p50", "p90", "p99", "worst"}
 * (non-finite figures as null), and of the edges: [0, 0.0625, ..., 1]. */
void conf_budget_hist_json(plumb_buf *b, const conf_budget_hist *h);
void conf_budget_hist_edges_json(plumb_buf *b);

/* TOSA-style statistics over a DATA-class output (docs/conformance.md):
 * with e_i = (got_i - want_i) / (u_acc * sum|x|_i) and K = k + 1 rounded
 * operations per element, a correct accumulator gives E[e^2] <= K/3;
 * fail when sum e^2 > 0.4*K*T or |sum e| > 2*sqrt(K*T) (symmetric data). */
#define CONF_STAT_MSE_FACTOR 0.4
#define CONF_STAT_BIAS_FACTOR 2.0
/* Small samples: the TOSA thresholds assume T is large enough for e^2 and
 * e to average out; with few elements one in-bound element can exceed
 * them. Each threshold is therefore also raised to the Bernstein tail
 * bound at this false-positive rate per output (|e_i| <= b_i, the element's
 * own bound in the same units), which makes the statistics inert below
 * about 2/3*ln(1/alpha) ~ 9 elements (docs/conformance.md). */
#define CONF_STAT_ALPHA 1e-6
/* When the output type is coarser than the accumulator: mismatching
 * elements may exceed their expected count by this many standard
 * deviations plus a constant before the accumulator is judged too narrow. */
#define CONF_STAT_MISMATCH_SIGMAS 4.0
#define CONF_STAT_MISMATCH_SLACK 4.0

/* Unit roundoff 2^-(p) of float type t (p = fraction bits + 1); 0 otherwise. */
double conf_unit_roundoff(plumb_dtype t);
/* Higham's gamma(k) = k*u / (1 - k*u); infinity when k*u >= 1. */
double conf_gamma(uint64_t k, double u);
/* The largest finite value of float type t; 0 otherwise. */
double conf_max_finite(plumb_dtype t);
/* η_min of float type t: half its smallest subnormal, the most a correctly
 * rounded result in the subnormal range errs by (Higham's absolute term of
 * fl(x op y) = (x op y)(1 + δ) + η); for f64 the whole spacing 2^-1074,
 * as half of it is not a double; 0 for other types. */
double conf_underflow_eta(plumb_dtype t);

/* The generation plan (conformance/gen.c), derived from the op table row:
 * whether an op gets cases at all (structure and check ops do not), its
 * shape classes (the first is the primary one, crossed with every value
 * class in the quick suite), the value classes of element type t, the target
 * types of convert/bitcast_convert (one target, t itself, for other ops),
 * and the special values of a float type as bit patterns (out may be NULL;
 * at most 32). */
bool conf_op_generated(plumb_opcode op);
/* The dynamic ops (get_dimension_size, dynamic_broadcast_in_dim, ...,
 * dynamic_gather): their cases are all polymorphic ("dyn_*" shape
 * classes). shape_assertion is a check op and gets none. */
bool conf_op_dynamic(plumb_opcode op);
/* Ops of static form that get the "dyn_*" family: their operands as `?`. */
bool conf_op_poly(plumb_opcode op);
const char *const *conf_shape_classes(plumb_opcode op, uint32_t *n);
const char *const *conf_value_classes(plumb_opcode op, plumb_dtype t, uint32_t *n);
uint32_t conf_convert_targets(plumb_opcode op, plumb_dtype src, plumb_dtype *out);
uint32_t conf_float_specials(plumb_dtype t, uint64_t *out);

/* Format boundaries (docs/conformance.md, "Boundaries from the format"):
 * pairs of inputs, below < above, across which the correctly rounded result
 * changes. For op in float type t: the overflow and underflow thresholds of
 * exp, expm1 (and its rounding to −1), the inputs where tanh, logistic and
 * erf round to ±1 (logistic: to 0), the exponent y of power with base 3
 * where 3^y overflows and underflows (adjacent values of t), the y of add,
 * subtract, multiply and divide with x = ±max or the smallest subnormal
 * where the result rounds to infinity or to zero, and the steps
 * of floor, ceil and the nearest roundings (the predecessor and successor
 * of each integer or half-integer). For convert src → dst: the source's
 * neighbours of dst's rounding midpoints. Return the count (entries beyond
 * cap are not written; out may be NULL). Computed with MPFR from the
 * format's precision and exponent range alone. */
typedef struct conf_boundary {
    uint64_t below, above;      /* bit patterns of the op's input type (of y for binary ops) */
    uint64_t other;             /* binary ops: x, the same for both; 0 otherwise */
} conf_boundary;
uint32_t conf_boundaries(plumb_opcode op, plumb_dtype t, conf_boundary *out, uint32_t cap);
uint32_t conf_convert_boundaries(plumb_dtype src, plumb_dtype dst, conf_boundary *out, uint32_t cap);
/* Convert pairs with a small type (FP8/FP6/FP4, i2/i4/ui2/ui4) on either
 * side, and their inputs (conformance/gen_types.c): every pattern of a
 * source of at most 16 bits; from f32/f64, the neighbours of every value of
 * a small float target and of every midpoint between two (ties included),
 * the overflow threshold, zeros, infinities and NaNs; from wider integers,
 * the integers around each midpoint. Returns the count (writes at most cap). */
bool conf_small_convert_pair(plumb_dtype src, plumb_dtype dst);
/* The complex family (gen.c): whether op has it (the elementwise ops that
 * take complex values, real and imag) and its value classes per complex
 * type (4, or 5 for multiply; 0 when none). */
bool conf_complex_family_op(plumb_opcode op);
uint32_t conf_complex_classes(plumb_opcode op);
/* cases of the complex-ops family (compare, select, sort, scatter, ...) of op */
uint32_t conf_complex_ops_cases(plumb_opcode op);
/* complex reduce-add and dot_general cases for op (gen.c's complex sums and
 * dots family, judged per component by the checker's Higham bound) */
uint32_t conf_complex_sum_cases(plumb_opcode op);
/* The small types' family (gen.c): whether op has a case of every input on
 * t (an elementwise op of one or two operands that takes the FP8/FP6/FP4
 * format or sub-byte integer t, docs/spec/types.md). */
bool conf_lowp_family_op(plumb_opcode op, plumb_dtype t);
uint64_t conf_small_convert_inputs(plumb_dtype src, plumb_dtype dst, uint64_t *out, uint64_t cap);
/* The special values of a small type as bit patterns (conformance/
 * gen_types.c; out holds 64): every NaN, the infinities and zeros where
 * the format has them, +-smallest/largest subnormal, +-smallest normal,
 * +-1, +-largest finite; every pattern of i2/i4/ui2/ui4. Data of small
 * types in every generated case starts with them (gen.c's fill). */
uint32_t conf_lowp_specials(plumb_dtype t, uint64_t *out);
/* The small types through the ops whose table row does not name them but
 * that take them (ir_lowp_accepts): indexing, sort, control flow, map,
 * windows, select, clamp, compare, the is_* predicates and dots; one case
 * per shape class of the op, value class "patterns" (gen.c). */
bool conf_lowp_ops_op(plumb_opcode op, plumb_dtype t);
/* complex cases of slice, reshape, broadcast_in_dim, dynamic_slice,
 * dynamic_update_slice, gather, optimization_barrier, constant, iota,
 * bitcast_convert, map, reduce_window (maximum) and dot, atan2 away
 * from its pole, real x complex dot_general and reduce-multiply (gen.c) */
uint32_t conf_complex_more_cases(plumb_opcode op);
/* convert between complex<f32> and complex<f64> (gen_cconvert.c) */
uint32_t conf_cconvert_cases(plumb_opcode op);
/* the sweeps family (gen_sweeps.c): the second-operand quarters of zeta
 * and polygamma on the 8-bit formats (full suite), reduce_precision with
 * no mantissa bit on the small float formats, the integer unary ops on
 * 8/16-bit integers, the is_* predicates on FP8/FP6/FP4 and convert from
 * f16, bf16, i8, ui8, i16 and ui16, each over every pattern */
uint32_t conf_sweeps_cases(plumb_opcode op, conf_suite suite);
/* the sizes family (gen_sizes.c): 1031x1031 add, transpose and reduce,
 * 131x300 . 300x67 dots, select on a scalar predicate, concatenate with
 * size-0 operands, a 4099-long f16 iota, bitcast_convert across widths,
 * then transpose and reverse layouts on the types the forms family skips */
uint32_t conf_sizes_cases(plumb_opcode op);
/* complex atan2 inputs kept by the atan2 family (gen_types.c): away from
 * the pole x = +-iy and from cancellation in x + iy and log q */
bool conf_catan2_accept(double yr, double yi, double xr, double xi);
/* f64 values (bit patterns) whose conversion to dst (f16 or bf16) differs
 * when rounded twice, through f32: a midpoint of dst plus or minus less
 * than half an f32 ulp. */
uint32_t conf_double_rounding_traps(plumb_dtype dst, uint64_t *out, uint32_t cap);
/* Random significands per binade and sign in the f32/f64 unary "binades" sweep. */
#define CONF_BINADE_SAMPLES 2

/* Exhaustive sweep of a unary elementwise op over every input of an f16,
 * bf16 or f32 type (conformance/exhaustive.c, `plumb exhaustive`). */
typedef struct conf_exhaustive_opts {
    plumb_opcode op;
    plumb_dtype dtype;          /* f16, bf16, f32 or a small float format (FP8/FP6/FP4) */
    const char *backend;        /* "ref", "runtime" or a plugin path; NULL = "ref" */
    uint32_t shard_index, shard_count;  /* this shard of the input range; count 0 = 1 */
    uint32_t threads;           /* worker threads, each with its own backend instance; 0 = 1 */
    uint64_t chunk;             /* inputs per execution; 0 = all of a type of at most 16 bits, else 2^20 */
    FILE *progress;             /* progress and ETA lines (a terminal); NULL = none */
} conf_exhaustive_opts;

typedef struct conf_exhaustive_result {
    uint64_t checked;           /* inputs compared */
    uint64_t over_bound;        /* inputs whose result is over the bound */
    double worst_ulp;           /* largest error in ULPs (infinity: a special value or exact op differed) */
    uint64_t worst_input_bits, worst_got, worst_want;
    uint32_t bound_ulp;         /* the op's bound for the type (0 for exact ops) */
    double seconds;             /* wall time, seconds */
    char first_failure[256];    /* the first input over the bound, or "" */
} conf_exhaustive_result;

bool conf_exhaustive_run(const conf_exhaustive_opts *o, conf_exhaustive_result *res, plumb_diag *d);
/* Whether `plumb exhaustive` sweeps op over t: a unary elementwise op
 * (convert aside) and a float type of at most 16 bits (f16, bf16, the
 * FP8/FP6/FP4 formats) or f32 that the verifier accepts for it (the small
 * formats are accepted op by op, docs/spec/types.md). */
bool conf_exhaustive_accepts(plumb_opcode op, plumb_dtype t);

#endif
