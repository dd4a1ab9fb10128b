/* Canonicalization policies of the compiled runtime (docs/policies.md):
 * opt-in rewrites of a program made before its cache key is computed, so
 * that values a front end baked into the graph stop making new programs.
 *
 * lift      float scalar and splat constants of the entry's body become
 *           hidden trailing parameters whose values the executable passes
 *           at every run;
 * lift-int  the same for integer and i1 constants.
 *
 * A constant is lifted only where its value cannot change a type or what
 * the compiled code does with it (see rt_policy_lift). */
#ifndef PLUMB_RT_POLICY_H
#define PLUMB_RT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb/core.h"
#include "plumb/ir.h"
#include "plumb/tensor.h"

#define RT_POLICY_LIFT     0x1u   /* float scalar/splat constants -> hidden parameters */
#define RT_POLICY_LIFT_INT 0x2u   /* integer and i1 ones too */

/* Parses a comma-separated policy list ("lift", "lift-int", "none"; empty
 * = none) into *flags. On an unknown word returns false with err naming it
 * and the words known. */
bool rt_policy_parse(const char *spec, uint32_t *flags, char *err, size_t cap);
/* The canonical spelling of flags ("lift,lift-int", "none"). */
const char *rt_policy_name(uint32_t flags, char *out, size_t cap);

/* The values of the constants a rewrite lifted, in hidden-parameter order
 * (each a rank-0 tensor holding the constant's element). */
typedef struct rt_lifted {
    plumb_tensor **vals;
    uint32_t n;
    char what[160];            /* the first lifted constant: "%lr (from train.py:41:10)" */
} rt_lifted;

/* Per entry, for the summary at exit (--stats): how many constants the
 * latest lifted program of the entry lifted, the first of them, and the
 * distinct sets of values bound to its programs. */
typedef struct rt_policy_note {
    uint32_t lifted;
    uint64_t bindings;
    char what[160];
} rt_policy_note;

void rt_policy_note_add(rt_policy_note *n, uint32_t lifted, const char *what);
/* "plumb: policy @main: 1 constant lifted by policy (%lr (from train.py:41:10));
 * 20 distinct values bound", or {"policy": {...}} as a JSON line; nothing
 * when the entry had nothing lifted. */
void rt_policy_note_print(FILE *f, bool json, const char *module, const char *entry, const rt_policy_note *n);

void rt_lifted_free(rt_lifted *l);
/* Bitwise equality of two lifted sets (types and bits). */
bool rt_lifted_equal(const rt_lifted *a, const rt_lifted *b);

/* Applies the lift policies of flags to function f of module m. When f has
 * no liftable constant, *out is NULL and lifted->n is 0: use m as it is.
 * Otherwise *out is a verified copy of m (free with ir_module_free) whose
 * f has one more parameter per lifted constant, appended after the
 * original ones and named "NAME (lifted by policy)" after the constant's
 * SSA name, and lifted holds their values. False with d set on failure. */
bool rt_policy_lift(const ir_module *m, const ir_func *f, uint32_t flags, uint64_t max_bytes,
                    ir_module **out, rt_lifted *lifted, plumb_diag *d);

#endif
