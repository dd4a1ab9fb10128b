/* The agreement check `plumb run --compare` prints (cli/cmd_run.c), shared
 * with `plumb bench` so that both hold a result to the same bounds. */
#ifndef PLUMB_CLI_COMPARE_H
#define PLUMB_CLI_COMPARE_H

#include <stdint.h>

#include "plumb/ir.h"
#include "plumb/ref.h"
#include "plumb/tensor.h"

/* Compares the results got (from `other`, e.g. "the runtime") of the entry
 * f of m run on ins with the reference's want: per result one line on
 * stdout, bit-exact for exact ops, the op table's ULP bound for one
 * elementwise op, the data-dependent bound for a sum or dot, "composite"
 * (reported, not bounded) otherwise. Returns the number of results outside
 * their bound, -1 when they cannot be compared; *worst (may be NULL) gets
 * the largest bounded fraction of the bound. ro gives the limits of the
 * one extra reference run (on |inputs|) that bounds sums and dots. */
int cli_compare_results(const char *cmd, const ir_module *m, const ir_func *f, plumb_tensor *const *ins,
                        uint32_t n_ins, const plumb_ref_options *ro, const char *other,
                        plumb_tensor *const *want, uint32_t n_want, plumb_tensor *const *got, uint32_t n_got,
                        double *worst);

#endif
