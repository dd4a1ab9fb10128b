/* The dot algorithm family of dot_general's conformance cases
 * (docs/spec/dotalg.md, "Conformance"): conformance/gen_dotalg.c holds the
 * algorithms and the values, conformance/gen.c writes the programs. */
#ifndef PLUMB_CONF_DOTALG_GEN_H
#define PLUMB_CONF_DOTALG_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "plumb/ir.h"
#include "plumb/tensor.h"

typedef struct conf_dotalg_case {
    const char *name;           /* the case's value class, "alg_..." */
    plumb_dtype operand;        /* lhs, rhs and result element type */
    ir_dot_algorithm alg;
} conf_dotalg_case;

/* The family's cases, in generation order; manifest.c counts them. */
extern const conf_dotalg_case conf_dotalg_cases[];
extern const size_t conf_dotalg_n_cases;

/* "algorithm = <...>" of c, StableHLO's pretty form. */
void conf_dotalg_attr(const conf_dotalg_case *c, char *out, size_t cap);
/* N(0, 1) values rounded to x's element type: most are not values of the
 * precision types, so rounding them changes the dot. */
bool conf_dotalg_fill(plumb_tensor *x, gsl_rng *rng);

#endif
