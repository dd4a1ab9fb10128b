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
#include "ir.h"
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

/* ---- checking builds made outside a runtime (plumb certify) ---------------
 * A backend plugin builds its own programs; certify's cache suite checks
 * each build it sees against a contract as a plumb runtime checks its own:
 * one ledger per run of a model (a cache scenario, on a cold instance),
 * counting builds per module and entry (and module signature). Variant
 * files are keyed when the ledger is made; keys use the portable ISA level
 * and opt level 2, the programs' keys too, so both sides agree. */
typedef struct plumb_contract_ledger plumb_contract_ledger;
/* c stays owned by the caller and must outlive the ledger. NULL with d set
 * when a variant file cannot be read or keyed. */
plumb_contract_ledger *plumb_contract_ledger_new(plumb_contract *c, plumb_diag *d);
void plumb_contract_ledger_free(plumb_contract_ledger *l);
/* The backend built a program for entry (NULL = "main") of m after `runs`
 * runs of that entry: false when the contract forbids it, every broken rule
 * (contract file and line) then written to why, followed by `explanation`
 * (the backend's reason, or NULL). The build is counted either way. */
bool plumb_contract_ledger_build(plumb_contract_ledger *l, const ir_module *m, const char *entry, uint64_t runs,
                                 const char *explanation, char *why, size_t cap);

/* After the runs: false (PLUMB_ERR_LIMIT, every such rule named by file and
 * line in d->msg) when a rule of the runtime's contract names a module and
 * entry that no compile of this runtime matched — a misspelt name would
 * otherwise pass every run. True when there is no contract. */
bool plumb_runtime_contract_check(const plumb_runtime *rt, plumb_diag *d);

#endif
