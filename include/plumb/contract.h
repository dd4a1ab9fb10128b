/* Compile contract files (docs/contracts.md): per module and entry, the
 * most programs the runtime may build, the exact programs (variants) it may
 * build, and "after N warm-up runs, no new compiles". A runtime given one
 * (plumb_runtime_options.contract_file, else $PLUMB_CONTRACT) refuses every
 * compile that breaks a rule with PLUMB_ERR_LIMIT, naming the contract's
 * file and line, the rule and the compile's explanation. Programs served
 * from the disk cache were built by an earlier run and never count. */
#ifndef PLUMB_CONTRACT_H
#define PLUMB_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "runtime.h"

typedef struct plumb_contract plumb_contract;

/* Parses a contract's text; `filename` names it in errors ("FILE:LINE:
 * problem", in d->msg) and is the folder variant files are relative to.
 * Checks the syntax and contradictions (a max-programs below the number of
 * variants, two different values for one module and entry); variant files
 * are read when a runtime takes the contract. NULL on error. */
plumb_contract *plumb_contract_parse(const char *text, size_t len, const char *filename, plumb_diag *d);
/* Reads and parses FILE. */
plumb_contract *plumb_contract_load(const char *path, plumb_diag *d);
void plumb_contract_free(plumb_contract *c);
/* Number of rules (lines that are not blank or comments). */
uint32_t plumb_contract_rule_count(const plumb_contract *c);

/* After the runs: false (PLUMB_ERR_LIMIT, every such rule named by file and
 * line in d->msg) when a rule of the runtime's contract names a module and
 * entry that no compile of this runtime matched — a misspelt name would
 * otherwise pass every run. True when there is no contract. */
bool plumb_runtime_contract_check(const plumb_runtime *rt, plumb_diag *d);

#endif
