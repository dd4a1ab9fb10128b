/* What the case families of the conformance generator share: the case
 * under construction (gen), the helpers that write a case's parameters,
 * types and values and finish it (conformance/gen.c), and each family's
 * entry point (conformance/gen_<family>.c), which conf_generate calls in a
 * fixed order: a case's ordinal, and so its seed and data, depends on that
 * order (docs/conformance.md). Internal to conformance/gen*.c. */
#ifndef PLUMB_CONF_GEN_FAMILY_H
#define PLUMB_CONF_GEN_FAMILY_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>

#include "conf.h"
#include "plumb/complex.h"
#include "plumb/fp8.h"
#include "plumb/lowp.h"

#define LEN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* ---- the case under construction ---------------------------------------------------- */

typedef struct gen {
    conf_cases *out;
    plumb_opcode op;
    conf_suite suite;
    uint64_t seed;
    uint32_t shard_index, shard_count;
    uint32_t ordinal;          /* cases planned so far (before sharding) */
    plumb_diag *d;
    gsl_rng *rng;
    /* current case */
    plumb_dtype t, target;     /* primary element type; convert's result type (else t) */
    const char *shape, *value;
    uint32_t rep;
    plumb_buf params, body;
    const char *ret_types;
    plumb_tensor *in[8];
    uint32_t n_in;
    const char *form;          /* attribute form of a "forms" case (arena), else NULL */
    bool dyn;                  /* a polymorphic ("dyn_*") case: dims < 0 in types are `?` */
    int64_t dyn_n;             /* ... and the size they have in the inputs */
    const char *opcross;       /* "<A>_<B>" of an operand-crossed dot case (static), else NULL */
    const char *post;          /* functions after @main (a composite's decomposition, arena), else NULL */
    const char *conv_shape;    /* the conv-types family's shape class (static), else NULL */
    bool failed;
} gen;

typedef struct shp {
    uint32_t rank;
    int64_t dims[4];
} shp;

/* ---- gen.c: values, parameters, types, finishing a case ------------------------------ */

/* splitmix64's finalizer: the seeds of cases are mix64 of (seed, op, dtype, ordinal) */
uint64_t conf_gen_mix64(uint64_t x);
/* "tensor<...>" of a type and shape, in the case's arena (a negative dim: `?`) */
const char *conf_gen_tys(gen *g, plumb_dtype t, uint32_t rank, const int64_t *dims);
/* v's bits in float type t, rounded once (a missing infinity: the extreme finite) */
uint64_t conf_gen_fbits(plumb_dtype t, double v);
/* the quiet-NaN bit of a float format (0 for f8E8M0FNU) */
uint64_t conf_gen_qbit(const plumb_dtype_info *di);
/* the i-th integer boundary value of t (0, 1, -1/max, min, max, ...) */
uint64_t conf_gen_int_boundary(plumb_dtype t, uint64_t i);
/* `bits` random bits from the case's generator */
uint64_t conf_gen_random_bits(gen *g, unsigned bits);
/* element i of value class vc on float type t */
uint64_t conf_gen_float_value(gen *g, plumb_dtype t, const char *vc, uint64_t i);
/* fills x by value class vc (the small types: their special values, then random codes) */
void conf_gen_fill(gen *g, plumb_tensor *x, const char *vc);
/* adds parameter %name filled by vc (NULL: integers in [lo, hi]) */
plumb_tensor *conf_gen_param(gen *g, const char *name, plumb_dtype t, uint32_t rank, const int64_t *dims,
                             const char *vc, int64_t lo, int64_t hi);
/* verifies the case's program and appends it (or counts it for another shard) */
bool conf_gen_push_case(gen *g, const char *ret_names);
/* the operand shape of a shape class */
shp conf_gen_ew_shape(const char *sc);
/* comparison directions, in the order of stablehlo's ComparisonDirection */
extern const char *const conf_gen_cmp_dirs[6];
/* an elementwise operand: a parameter, or broadcast from its trailing dim */
void conf_gen_ew_operand(gen *g, const char *name, plumb_dtype t, shp s, bool bcast, const char *vc);
/* result types "A, B" of a case with two results */
void conf_gen_set_ret_types2(gen *g, const char *a, const char *b);
/* the is_finite/is_inf family: float operand, i1 result */
bool conf_gen_pred_op(plumb_opcode op);
/* an elementwise float op of one operand on t */
bool conf_gen_is_unary_float_ew(plumb_opcode op, plumb_dtype t);
/* one case of a later family, seeded like every case; fn writes it */
bool conf_gen_depth_case(gen *g, plumb_dtype t, plumb_dtype target, const char *vc, bool (*fn)(gen *));
/* one case of the plan through its op's generator */
bool conf_gen_one_case(gen *g, plumb_dtype t, const char *sc, const char *vc, uint32_t rep, plumb_dtype target);

/* ---- the families, each in its file ---------------------------------------------------- */

/* gen_elementwise.c */
bool conf_gen_elementwise(gen *g, plumb_dtype target);
bool conf_gen_exhaustive16(gen *g);
bool conf_gen_binary_sweep(gen *g, int which);
/* gen_movement.c */
bool conf_gen_movement(gen *g, plumb_dtype target);
bool conf_gen_indexing(gen *g);
/* gen_reduce.c */
bool conf_gen_reduce(gen *g, plumb_opcode body);
bool conf_gen_window(gen *g);
/* gen_contract.c */
bool conf_gen_conv(gen *g);
bool conf_gen_dynconv(gen *g);
bool conf_gen_dot(gen *g);
/* gen_control.c */
bool conf_gen_barrier(gen *g);
bool conf_gen_while(gen *g);
bool conf_gen_branches(gen *g);
bool conf_gen_map(gen *g);
bool conf_gen_scan(gen *g);
/* the case op over x (type text X) with selector constant `index` (text):
 * branch k returns x plus k additions of x (also gen_sizes.c's index_past) */
void conf_gen_case3_text(plumb_buf *b, const char *index, const char *X);
/* gen_ragged.c */
bool conf_gen_ragged(gen *g);
bool conf_gen_composite(gen *g);
bool conf_gen_tuple(gen *g);
/* gen_depth.c */
bool conf_gen_depth(gen *g);
bool conf_gen_opcross(gen *g);
/* gen_forms.c */
bool conf_gen_forms(gen *g);
/* gen_dynamic.c */
bool conf_gen_dynamic(gen *g);
/* gen_complex.c */
bool conf_gen_complex(gen *g);
bool conf_gen_complex_sum(gen *g);
bool conf_gen_complex_ops(gen *g);
bool conf_gen_complex_more(gen *g);
bool conf_gen_cconvert(gen *g);
/* gen_lowp.c */
bool conf_gen_lowp(gen *g);
bool conf_gen_lowp_ops(gen *g);
/* gen_sweeps.c */
bool conf_gen_sweeps(gen *g);
/* gen_sizes.c */
bool conf_gen_sizes(gen *g);

#endif
