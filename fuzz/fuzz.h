/* Differential fuzzing (fuzz/): random valid programs built from the op
 * table (fuzz/gen.c), named mutators with the compile counts the contract
 * predicts for them, and a campaign (fuzz/campaign.c) that runs each
 * program and its mutants on a backend in a forked worker and checks three
 * oracles: per-op agreement with the reference, compile counts, and
 * crashes or hangs. docs/fuzz.md describes the whole. */
#ifndef PLUMB_FUZZ_H
#define PLUMB_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/core.h"
#include "plumb/ops.h"
#include "plumb/tensor.h"

#define FZ_MAX_RANK 4
#define FZ_MAX_NODES 64        /* parameters, constants and ops of one program */
#define FZ_DEFAULT_NODES 8     /* ops per program unless --max-nodes says otherwise */
#define FZ_DEFAULT_ELEMS 256   /* elements per tensor unless --max-elements says otherwise */
#define FZ_MAX_ARGS 5          /* operands of one op (dynamic_pad has five) */

/* What the generator may use. */
typedef struct fz_gen_opts {
    bool ops[PLUMB_OP_COUNT];  /* ops allowed (fz_gen_opts_init: every op fz_op_supported) */
    uint32_t dtypes;           /* PLUMB_TY_BIT mask of element types */
    uint32_t max_nodes;        /* ops per program, at least 1 */
    uint32_t max_elems;        /* elements per tensor, at least 1 */
    uint32_t poly;             /* percent of parameters (rank >= 1) whose dimension 0 is a bounded `?` */
} fz_gen_opts;

void fz_gen_opts_init(fz_gen_opts *o);
/* True for the ops the generator can build. */
bool fz_op_supported(plumb_opcode op);
/* True for the dynamic ops, built only with --poly. */
bool fz_op_needs_poly(plumb_opcode op);
/* Whether the generator can build op with primary element type t (the
 * type the coverage table counts it under): the elementwise ops in the
 * types the table gives them, every type for the others but a dot of i1. */
bool fz_pair_possible(plumb_opcode op, plumb_dtype t);

enum { FZ_PARAM, FZ_CONST, FZ_OP };

typedef struct fz_node {
    uint8_t kind;              /* FZ_PARAM, FZ_CONST or FZ_OP */
    plumb_opcode op;           /* FZ_OP: the op */
    plumb_opcode body;         /* reduce: the body op (add or maximum) */
    plumb_dtype dtype;
    uint32_t rank;
    int64_t dims[FZ_MAX_RANK];
    uint32_t arg[FZ_MAX_ARGS], n_args; /* operand node indices */
    uint32_t index;            /* FZ_PARAM: input index; FZ_OP: its first result's index */
    uint8_t dyn;               /* bit i: dimension i is `?`, bounded by dims[i] */
    bool fixed;                /* FZ_CONST: gather/scatter indices, static sizes of a shape: never mutated */
    char pre[24];              /* text between the op name and its operands (compare's direction) */
    char post[120];            /* text after the operands (attributes) */
    /* Op set v2 ops (convolution, windows, linear algebra, batch norm,
     * control flow): the whole line, "$r" standing for the result's name
     * and "$K" for operand K's (regions capture values by name), and the
     * result types; n_res results (0: as fz_node_results says), val the
     * one other ops read. */
    char line[1400];
    char rtypes[240];
    uint8_t n_res, val;
    plumb_tensor *value;       /* FZ_CONST: the baked value */
} fz_node;

/* One generated program: nodes in definition order; every op's result is
 * returned (results in node order), so a backend's intermediates can be
 * checked op by op. */
typedef struct fz_prog {
    fz_node n[FZ_MAX_NODES];
    uint32_t n_nodes;
    uint32_t n_params, n_results;
    /* Every `?` dimension of the program has this actual size (at most the
     * smallest bound): one sequence length per program, so values combined
     * by an op always agree at run time. 0 when there is no `?`. */
    int64_t poly_size;
    plumb_tensor *inputs[FZ_MAX_NODES]; /* one per parameter, after fz_fill_inputs */
} fz_prog;

/* Builds the program for seed; bump is added to every dimension the
 * generator draws for a parameter (the static-shape mutator uses 1). False
 * with d set only on allocation failure or when no op is allowed for any
 * allowed element type. */
bool fz_generate(const fz_gen_opts *o, uint64_t seed, uint32_t bump, fz_prog *p, plumb_diag *d);
/* Fills the parameters with values drawn from value_seed: per tensor a
 * value class (specials, subnormals, boundaries, normal, uniform bits). */
bool fz_fill_inputs(fz_prog *p, uint64_t value_seed, plumb_diag *d);
void fz_prog_free(fz_prog *p);
/* The program's text: func.func @main taking the parameters and returning
 * every op's result. */
bool fz_prog_text(const fz_prog *p, plumb_buf *b);
/* The text of op node k alone, every operand (constants too) a parameter
 * %x0..: what the checker re-evaluates on the backend's own operands.
 * *n_in gets the parameter count; in_nodes the operand node of each. */
bool fz_op_text(const fz_prog *p, uint32_t k, plumb_buf *b, uint32_t *in_nodes, uint32_t *n_in);
/* The results op node n has (top_k: values and indices; rng_bit_generator:
 * the new state and the output; others 1). The node's type is that of the
 * result other ops read. */
uint32_t fz_node_results(const fz_node *n);
/* Which of them other ops read: rng_bit_generator's output (1), else 0. */
uint32_t fz_node_value(const fz_node *n);
/* Parses and verifies text: a failure is a generator bug (d says why). */
bool fz_prog_verify(const char *text, size_t len, plumb_diag *d);
/* The element type an op node is judged by (its first data operand's). */
plumb_dtype fz_node_primary(const fz_prog *p, uint32_t k);

/* Checks op node k's result in outs (the backend's results of p, one per
 * op) against the reference re-evaluated on the backend's own operands
 * (its results for earlier ops, the parameters, the constants), through
 * the program-level oracle's per-op check (conformance/oracle.h) under the
 * declared capabilities caps. 0 when within bound, 1 when not (r says
 * why), -1 with d set when the checker could not run. */
struct conf_caps;
struct conf_result;
int fz_check_op(const fz_prog *p, uint32_t k, plumb_tensor *const *outs, const struct conf_caps *caps,
                struct conf_result *r, plumb_diag *d);

/* ---- mutators ------------------------------------------------------------ */
typedef enum fz_mutator {
    FZ_MUT_PARAMS,             /* new parameter values: 0 new compiles */
    FZ_MUT_IDENTICAL,          /* the same program again: 0 */
    FZ_MUT_CONSTANT,           /* a baked constant's value changed: exactly 1 */
    FZ_MUT_SHAPE,              /* static shapes changed: exactly 1 */
    FZ_MUT_POLY_SIZE,          /* the `?` size changed within its bounds: per the backend's claim */
    FZ_MUT_BAKE,               /* a parameter baked into a constant: exactly 1 */
    FZ_MUT_LIFT,               /* a constant lifted to a parameter: exactly 1 */
    FZ_MUT_BATCH_FIELD,        /* an optional parameter added with its use: exactly 1 */
    FZ_MUT_ATTR,               /* an attribute tweaked: exactly 1 */
    FZ_MUT_INSERT,             /* an op inserted: exactly 1 */
    FZ_MUT_REMOVE,             /* an op removed: exactly 1 */
    FZ_MUT_COUNT
} fz_mutator;

const char *fz_mutator_name(fz_mutator m);
/* The compiles the compile-cache contract predicts for the mutant on a
 * backend with polymorphism claim poly (a plumb_backend_poly value). */
uint32_t fz_mutator_predicts(fz_mutator m, uint32_t poly);
/* Parses "params,identical,..." or "all" into a mask of 1 << fz_mutator. */
bool fz_mutators_parse(const char *s, uint32_t *mask, char *bad, size_t cap);
/* Builds mutant m of program (o, seed) into out (its inputs filled). False
 * with *applicable false when m does not apply (no constant to change, no
 * parameter whose shape can grow); false with d set on failure. */
bool fz_mutate(const fz_gen_opts *o, uint64_t seed, fz_mutator m, fz_prog *out, bool *applicable, plumb_diag *d);
/* The base program of (o, seed) with its inputs. */
bool fz_base(const fz_gen_opts *o, uint64_t seed, fz_prog *out, plumb_diag *d);

/* ---- the campaign -------------------------------------------------------- */
typedef struct fz_options {
    const char *backend;       /* "ref", "runtime" or a plugin path */
    uint64_t seed;
    uint64_t count;            /* programs to run (before sharding); 0 = until time_s */
    double time_s;             /* stop after this many seconds; 0 = no limit */
    uint64_t first;            /* index of the first program (--index replays one) */
    uint32_t mutators;         /* mask of 1 << fz_mutator */
    fz_gen_opts gen;
    uint32_t shard_index, shard_count;
    const char *out_dir;       /* finding directories; NULL = none saved */
    double timeout_s;          /* per program and its mutants, seconds */
    uint32_t batch;            /* programs per worker process */
    bool progress;             /* progress line on stderr */
} fz_options;

void fz_options_init(fz_options *o);

#define FZ_SIG_MAX 128

typedef struct fz_finding {
    char signature[FZ_SIG_MAX];/* oracle/op/dtype/mutator */
    char oracle[16];           /* agree, compiles, crash, error */
    char op[48];
    char dtype[8];
    char mutator[16];          /* "base" for the unmutated program */
    uint64_t program;          /* the program's index in the campaign */
    uint64_t seed;             /* the program's own seed */
    uint32_t hits;             /* programs that showed this signature */
    char detail[640];          /* expected and observed */
    char dir[512];             /* the finding's directory, or "" */
} fz_finding;

typedef struct fz_result {
    uint64_t programs;         /* programs run (this shard) */
    uint64_t mutants;          /* mutants run */
    uint64_t skipped;          /* programs using an op or type the backend does not claim */
    uint64_t ops_checked;      /* op results checked against the reference */
    uint64_t op_cover[PLUMB_OP_COUNT][PLUMB_DTYPE_COUNT]; /* op results checked per op and primary type */
    double seconds;
    fz_finding *findings;
    uint32_t n_findings, cap_findings;
} fz_result;

/* Runs the campaign. False with d set when it cannot run (backend not
 * loadable, output directory unusable, a generator bug); findings are in
 * res. Free res with fz_result_free. */
bool fz_run(const fz_options *o, fz_result *res, plumb_diag *d);
void fz_result_free(fz_result *res);
void fz_report_json(plumb_buf *b, const fz_options *o, const fz_result *res);

/* ---- the reducer (fuzz/reduce.c, plumb reduce) ----------------------------- */
#define FZ_REDUCE_MAX_RUNS 2000     /* candidates the value pass may run, at most */

typedef struct fz_reduce_result {
    uint32_t ops_before, ops_after;
    uint64_t elems_before, elems_after; /* input elements, summed over the parameters */
    uint32_t shapes_cut;           /* dimensions halved */
    uint32_t values_set;           /* inputs or constants (or ranges of them) set to zeros or ones */
    uint32_t tried, kept;          /* candidates run, candidates that still showed the finding */
    char program[600];             /* the reduced program's path */
    char replay[1200];             /* a command that replays it */
} fz_reduce_result;

/* Reduces the finding saved in dir by plumb fuzz --out: rebuilds its
 * program from finding.txt (which must match program.mlir), then removes
 * ops one at a time — each removed op's uses read a new parameter holding
 * the value the backend computed for it, so the ops left see the same
 * operands —, then halves dimensions of the inputs and constants (their
 * values cut to the leading half, the ops' shapes re-derived), then sets
 * inputs and constants to zeros or ones (whole, else ranges halving in
 * size), keeping a candidate only when it verifies and the same
 * signature still shows (agree: an op of the same name and type fails the
 * checker; crash, hang, error: the run fails). Writes reduced.mlir,
 * reduced inputs rK.tensor and reduced.txt into dir. Returns 1 when
 * reduced (or already minimal), 0 when the finding does not reproduce, -1
 * with d set when dir is not a usable finding (named in the message). */
int fz_reduce(const char *dir, double timeout_s, fz_reduce_result *r, plumb_diag *d);

#endif
